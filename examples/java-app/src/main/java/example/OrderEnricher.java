package example;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Order enricher: a consume-transform-produce app, exactly-once with Kafka transactions, on the plain Java
 * client.
 *
 * <p>It reads orders and writes one enriched order per order: the order's value with {@code |enriched}
 * appended, so the output's value starts with its input's (that is how it names the order it came from).
 * Per batch it begins a transaction, sends the outputs, adds the input offsets to the same transaction
 * ({@code sendOffsetsToTransaction} with the consumer's group metadata) and commits; its consumer reads
 * {@code read_committed}.
 *
 * <p>Three real bugs, one flag each: {@code --bug offsets-outside-txn} lets the consumer commit its offsets by
 * itself (auto-commit), outside the transactions; {@code --bug read-uncommitted} leaves {@code isolation.level}
 * at the Java client's default, {@code read_uncommitted}, so aborted orders are enriched; {@code --bug
 * at-least-once} uses no transactions: an idempotent producer sends the batch's outputs, flushes them, and
 * then the consumer commits the batch's offsets synchronously, so a crash between the two enriches the batch
 * again.
 *
 * <p>Settings come from the environment kafka-eos-harness gives it (KEH_BOOTSTRAP_SERVERS, KEH_INPUT_TOPIC,
 * KEH_OUTPUT_TOPIC, KEH_GROUP_ID, KEH_TRANSACTIONAL_ID_PREFIX, KEH_INSTANCE); it runs until it is stopped.
 */
public final class OrderEnricher {
    private static final long WORK_MS = 5;

    private OrderEnricher() {
    }

    public static void main(String[] args) throws InterruptedException {
        String bug = args.length == 2 && args[0].equals("--bug") ? args[1] : "";
        if (args.length != 0 && !List.of("offsets-outside-txn", "read-uncommitted", "at-least-once").contains(bug)) {
            System.err.println("usage: OrderEnricher [--bug offsets-outside-txn|read-uncommitted|at-least-once]");
            System.exit(2);
        }
        Map<String, String> env = System.getenv();
        String output = env.get("KEH_OUTPUT_TOPIC");

        Properties consumerProps = new Properties();
        consumerProps.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, env.get("KEH_BOOTSTRAP_SERVERS"));
        consumerProps.put(ConsumerConfig.GROUP_ID_CONFIG, env.get("KEH_GROUP_ID"));
        consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, String.valueOf(bug.equals("offsets-outside-txn")));
        if (!bug.equals("read-uncommitted")) {
            consumerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        }
        consumerProps.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "20"); // a transaction per 20 orders at most
        // A killed instance leaves the group in seconds, so its partitions move on quickly.
        consumerProps.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
        consumerProps.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1500");

        Properties producerProps = new Properties();
        producerProps.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, env.get("KEH_BOOTSTRAP_SERVERS"));
        boolean atLeastOnce = bug.equals("at-least-once");
        if (atLeastOnce) {
            producerProps.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        } else {
            producerProps.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                env.get("KEH_TRANSACTIONAL_ID_PREFIX") + "-" + env.getOrDefault("KEH_INSTANCE", "1"));
        }

        AtomicBoolean running = new AtomicBoolean(true);
        CountDownLatch stopped = new CountDownLatch(1);
        try (KafkaConsumer<byte[], byte[]> consumer =
                 new KafkaConsumer<>(consumerProps, new ByteArrayDeserializer(), new ByteArrayDeserializer());
             KafkaProducer<byte[], byte[]> producer =
                 new KafkaProducer<>(producerProps, new ByteArraySerializer(), new ByteArraySerializer())) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                running.set(false);
                consumer.wakeup();
                try {
                    stopped.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
            if (!atLeastOnce) {
                producer.initTransactions(); // fences an earlier incarnation of this instance, aborting its transaction
            }
            consumer.subscribe(List.of(env.get("KEH_INPUT_TOPIC")));
            while (running.get()) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(500));
                if (batch.isEmpty()) {
                    continue;
                }
                if (atLeastOnce) {
                    Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
                    for (ConsumerRecord<byte[], byte[]> order : batch) {
                        Thread.sleep(WORK_MS);
                        producer.send(new ProducerRecord<>(output, order.key(), enrich(order.value())));
                        next.put(new TopicPartition(order.topic(), order.partition()),
                            new OffsetAndMetadata(order.offset() + 1));
                    }
                    producer.flush();
                    try {
                        consumer.commitSync(next); // the batch's outputs are written; a crash now repeats them
                    } catch (CommitFailedException | RebalanceInProgressException | RetriableException e) {
                        // The group moved on: the batch is read again by whoever owns it now.
                    }
                    continue;
                }
                producer.beginTransaction();
                try {
                    Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
                    for (ConsumerRecord<byte[], byte[]> order : batch) {
                        Thread.sleep(WORK_MS); // what enriching an order costs (a lookup elsewhere)
                        producer.send(new ProducerRecord<>(output, order.key(), enrich(order.value())));
                        next.put(new TopicPartition(order.topic(), order.partition()),
                            new OffsetAndMetadata(order.offset() + 1));
                    }
                    if (!bug.equals("offsets-outside-txn")) {
                        producer.sendOffsetsToTransaction(next, consumer.groupMetadata());
                    }
                    producer.commitTransaction();
                } catch (ProducerFencedException | OutOfOrderSequenceException | AuthorizationException e) {
                    throw e; // fatal: a newer instance took over, or the producer is unusable
                } catch (KafkaException e) {
                    producer.abortTransaction();
                    rewind(consumer);
                }
            }
        } catch (WakeupException e) {
            // stopping
        } finally {
            stopped.countDown();
        }
    }

    static byte[] enrich(byte[] value) {
        byte[] suffix = "|enriched".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] out = java.util.Arrays.copyOf(value == null ? new byte[0] : value,
            (value == null ? 0 : value.length) + suffix.length);
        System.arraycopy(suffix, 0, out, out.length - suffix.length, suffix.length);
        return out;
    }

    /** Back to the group's committed offsets: the aborted batch is read again. */
    static void rewind(KafkaConsumer<byte[], byte[]> consumer) {
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(consumer.assignment());
        for (TopicPartition tp : consumer.assignment()) {
            OffsetAndMetadata at = committed.get(tp);
            if (at == null) {
                consumer.seekToBeginning(List.of(tp));
            } else {
                consumer.seek(tp, at.offset());
            }
        }
    }
}
