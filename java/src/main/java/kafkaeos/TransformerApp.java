package kafkaeos;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The consume-transform-produce app on Kafka's Java client: {@code java -cp ... kafkaeos.TransformerApp
 * SPEC.json}, the twin of harness.workloads.transformer. It reads the input topic in a consumer group
 * (read_committed, no auto commit, from the earliest offset) and writes one output per input, with a fresh
 * id of its session, the input's key, and the input's id as its ledger {@code source}.
 *
 * <ul>
 *   <li>plain: produce a batch's outputs, flush, pause {@code pause_before_commit_ms}, write the
 *   {@code offsets-commit} line, commit the offsets (a refused commit is counted: the group moved on and
 *   someone else processes the batch again);</li>
 *   <li>at_most_once: the other order: write the {@code offsets-commit} line, commit the offsets (and once
 *   the commit returned, the {@code offsets-committed} line), pause, then produce the outputs and flush; a
 *   crash in the pause loses the batch;</li>
 *   <li>transactional: {@code initTransactions}; per batch begin, produce, add the consumed positions with the
 *   consumer's group metadata (KIP-447 fencing), pause, commit. Every {@code abort_every}-th transaction is
 *   aborted on purpose, an abortable error aborts it; both rewind to the committed offsets and redo the batch.
 *   Fenced, or any other error that stops the producer: ledger {@code fenced}, exit 3.</li>
 * </ul>
 * It stops once it has had nothing to do for {@code idle_exit_s}: every partition it owns read up to its
 * high watermark and every other partition of the input committed by the group up to its end. A restart
 * carries its session on from {@code resume: {next_seq, next_txn}}. A database sink ({@code sink_db}) is
 * not supported here: exit 2.
 * Report: {@code outcomes {consumed, produced, batches, aborted}}, {@code errors}, and {@code fenced},
 * {@code setup_error} or {@code stuck} as in {@link ProducerApp}.
 */
public final class TransformerApp {
    private final Spec.Transformer spec;
    private final Ledger ledger;
    private final Report report = new Report("consumed", "produced", "batches", "aborted");
    private final boolean transactional;
    private final boolean atMostOnce;
    private KafkaConsumer<byte[], byte[]> consumer;
    private KafkaProducer<byte[], byte[]> producer;
    private Admin admin;
    private Transactions ends;
    private long seq;
    private long txn;

    private TransformerApp(Spec.Transformer spec, Ledger ledger) {
        this.spec = spec;
        this.ledger = ledger;
        transactional = spec.mode.equals("transactional");
        atMostOnce = spec.mode.equals("at_most_once");
        if (spec.resume != null) {
            seq = spec.resume.nextSeq;
            txn = spec.resume.nextTxn;
        }
        Watchdog.reportWith(report::snapshot);
    }

    public static void main(String[] args) throws IOException {
        Spec.Transformer spec = Spec.read(args[0], Spec.Transformer.class);
        if (!spec.sinkDb.isEmpty()) {
            Map<String, Object> error = new LinkedHashMap<>();
            error.put("error", "SINK_DB_UNSUPPORTED");
            error.put("message", "sink_db is not supported by the Java transformer; use the Python app for it");
            error.put("config", true);
            error.put("stage", "create");
            Report.print(Map.of("setup_error", error));
            System.exit(ProducerApp.SETUP_EXIT);
        }
        if (!List.of("plain", "at_most_once", "transactional").contains(spec.mode)) {
            throw new IllegalArgumentException("mode must be plain, at_most_once or transactional, not " + spec.mode);
        }
        TransformerApp app;
        int exit;
        try (Ledger ledger = new Ledger(Path.of(spec.ledger), spec.batchSize)) {
            app = new TransformerApp(spec, ledger);
            exit = app.run();
        }
        Report.print(app.report.snapshot());
        System.exit(exit);
    }

    private int run() {
        String transactionalId = null;
        String stage = "create";
        try {
            consumer = new KafkaConsumer<>(consumerConfig(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
            Properties props = clientConfig(spec.producerConfig);
            if (transactional) {
                transactionalId = spec.transactionalId.isEmpty()
                    ? spec.groupId + "-" + spec.session : spec.transactionalId;
                props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
            }
            producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
            admin = Admin.create(clientConfig(Map.of()));
            double blockS = Double.parseDouble(props.getProperty(ProducerConfig.MAX_BLOCK_MS_CONFIG, "60000")) / 1000;
            ends = new Transactions(producer, ledger, spec.session, blockS, Transactions.ATTEMPTS);
            if (transactional) {
                stage = "init_transactions";
                Watchdog.bounded("initTransactions", blockS, producer::initTransactions);
            }
        } catch (KafkaException e) {
            report.put("setup_error", Report.setupError(e, stage));
            close();
            return ProducerApp.SETUP_EXIT;
        }
        ledger.session(spec.session, transactionalId);
        consumer.subscribe(List.of(spec.inputTopic));
        long started = System.nanoTime();
        long idleSince = started;
        try {
            while (System.nanoTime() - idleSince < spec.idleExitS * 1e9) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(500));
                if (batch.isEmpty()) {
                    if (!nothingToDo((System.nanoTime() - started) / 1e9)) {
                        idleSince = System.nanoTime();
                    }
                    continue;
                }
                report.count("consumed", batch.count());
                if (transactional) {
                    transaction(batch);
                } else if (atMostOnce) {
                    atMostOnce(batch);
                } else {
                    plain(batch);
                }
                report.count("batches", 1);
                // Idle from the end of the work: a batch slowed down (by a fault, or a busy machine) for
                // longer than idle_exit_s must not end the app before it looks again.
                idleSince = System.nanoTime();
            }
        } catch (KafkaException | IllegalStateException e) {
            report.error(Outcomes.name(e));
            if (Outcomes.retriable(e)) {
                throw e;
            }
            ledger.fenced(spec.session, Outcomes.name(e));
            report.put("fenced", Report.error(e));
            return ProducerApp.FENCED_EXIT;
        } finally {
            close();
        }
        return 0;
    }

    private Properties clientConfig(Map<String, Object> config) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, spec.bootstrapServers);
        props.putAll(Spec.properties(config));
        props.putAll(Spec.properties(spec.login));
        return props;
    }

    private Properties consumerConfig() {
        Properties props = new Properties();
        props.put(ConsumerConfig.GROUP_ID_CONFIG, spec.groupId);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        // The smallest session a broker allows by default: a dead member leaves the group in
        // seconds, so a restarted app is not kept waiting for it.
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
        props.putAll(clientConfig(spec.consumerConfig));
        // A poll is a batch: one transaction, or one offset commit.
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, String.valueOf(spec.batchSize));
        return props;
    }

    private void close() {
        Duration patience = Duration.ofSeconds(30);
        if (consumer != null) {
            consumer.close(); // waits up to 30 s; close(Duration) is deprecated in 4.x
        }
        if (producer != null) {
            producer.close(patience);
        }
        if (admin != null) {
            admin.close(patience);
        }
    }

    /** The batch's outputs: their {@code invoke} lines in one write, then the records to the client. */
    private void emit(ConsumerRecords<byte[], byte[]> inputs, Long txn) {
        long[] ids = new long[inputs.count()];
        Long[] sources = new Long[ids.length];
        int n = 0;
        for (ConsumerRecord<byte[], byte[]> input : inputs) {
            ids[n] = Values.id(spec.session, seq++);
            sources[n++] = Values.decodeId(input.value());
        }
        ledger.invokes(spec.session, ids, spec.outputTopic, null, txn, sources);
        n = 0;
        for (ConsumerRecord<byte[], byte[]> input : inputs) {
            long id = ids[n++];
            producer.send(new ProducerRecord<>(spec.outputTopic, input.key(), Values.encodeValue(id, spec.valueBytes)),
                (metadata, e) -> {
                    if (e == null) {
                        ledger.ok(id, metadata.partition(), metadata.offset());
                    } else {
                        report.error(Outcomes.name(e));
                        ledger.info(id, Outcomes.name(e));
                    }
                });
        }
        report.count("produced", inputs.count());
    }

    private void plain(ConsumerRecords<byte[], byte[]> batch) {
        write(batch);
        pause();
        commit();
    }

    private void atMostOnce(ConsumerRecords<byte[], byte[]> batch) {
        if (commit()) {
            ledger.offsetsCommitted(spec.session);
        }
        pause();
        write(batch);
    }

    private void write(ConsumerRecords<byte[], byte[]> batch) {
        emit(batch, null);
        producer.flush();
        ledger.flush();
    }

    /** The consumed positions committed; false when the group refused them. */
    private boolean commit() {
        ledger.offsetsCommit(spec.session);
        try {
            consumer.commitSync();
            return true;
        } catch (KafkaException e) {
            // The group moved on (a rebalance while this app was away): whoever owns the partitions now
            // starts from the offsets committed before. After the outputs (plain) that repeats the batch:
            // the control's anomaly, not a crash.
            report.error(Outcomes.name(e));
            return false;
        }
    }

    private void transaction(ConsumerRecords<byte[], byte[]> batch) {
        long number = txn++;
        producer.beginTransaction();
        ledger.txn("begin", spec.session, number, null);
        String outcome = ends.end(number, Transactions.abortsOnPurpose(spec.abortEvery, number), () -> {
            emit(batch, number);
            // The batch's partitions: their positions are known, just past what it holds.
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            for (TopicPartition tp : batch.partitions()) {
                offsets.put(tp, new OffsetAndMetadata(consumer.position(tp)));
            }
            Watchdog.bounded("sendOffsetsToTransaction", ends.blockS,
                () -> producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata()));
            pause();
        });
        if (outcome.equals(Transactions.ABORTED)) {
            rewind();
        }
    }

    /** Back to the group's committed offsets, so an aborted batch is processed again. */
    private void rewind() {
        report.count("aborted", 1);
        Set<TopicPartition> owned = consumer.assignment();
        Map<TopicPartition, OffsetAndMetadata> committed = committed(owned);
        for (TopicPartition tp : owned) {
            OffsetAndMetadata at = committed.get(tp);
            if (at == null) {
                consumer.seekToBeginning(List.of(tp));
            } else {
                consumer.seek(tp, at.offset());
            }
        }
    }

    /**
     * The group's committed offsets, asked again while the coordinator does not answer in time (a slow or
     * cut link): the batch was aborted because of such a stall, and giving up here would end the app for it.
     */
    private Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> owned) {
        for (int attempt = 1; ; attempt++) {
            try {
                return consumer.committed(owned, Duration.ofSeconds(30));
            } catch (org.apache.kafka.common.errors.TimeoutException e) {
                if (attempt >= Transactions.ATTEMPTS) {
                    throw e;
                }
                report.error(Outcomes.name(e));
            }
        }
    }

    /**
     * Idle: every owned partition read up to its high watermark (asked read_uncommitted, as a read_committed
     * consumer is told the last stable offset) and every other partition of the input committed by the group
     * up to its end, as in the Python app: an instance stuck in a call may hold partitions until it gives up.
     * Nothing owned: not before the join grace. A partition not read since its assignment starts at its
     * committed offset (else at its beginning): the consumer's position says so, and cannot say while another
     * instance's transactional offsets are pending, which is busy; nor can the committed offsets.
     */
    private boolean nothingToDo(double runningS) {
        Set<TopicPartition> owned = consumer.assignment();
        if (owned.isEmpty() && runningS <= spec.joinGraceS) {
            return false;
        }
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        try {
            for (int p = 0; p < spec.inputPartitions; p++) {
                latest.put(new TopicPartition(spec.inputTopic, p), OffsetSpec.latest());
            }
            Map<TopicPartition, ListOffsetsResultInfo> ends = admin
                .listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED))
                .all().get(5, TimeUnit.SECONDS);
            Set<TopicPartition> others = new HashSet<>(latest.keySet());
            others.removeAll(owned);
            Map<TopicPartition, OffsetAndMetadata> stored =
                others.isEmpty() ? Map.of() : consumer.committed(others, Duration.ofSeconds(5));
            for (TopicPartition tp : latest.keySet()) {
                OffsetAndMetadata committed = stored.get(tp);
                long at = owned.contains(tp)
                    ? consumer.position(tp, Duration.ofSeconds(5))
                    : committed == null ? 0 : committed.offset();
                if (at < ends.get(tp).offset()) {
                    return false;
                }
            }
        } catch (KafkaException | ExecutionException | TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return true;
    }

    private void pause() {
        long until = System.nanoTime() + spec.pauseBeforeCommitMs * 1_000_000L;
        for (long wait = until - System.nanoTime(); wait > 0; wait = until - System.nanoTime()) {
            LockSupport.parkNanos(wait);
        }
    }
}
