package kafkaeos;

import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaClientSupplier;

/**
 * The clients Kafka Streams runs on, as its default supplier makes them, but counting into the app's
 * {@link Report} what Streams handles silently: every commit that succeeded (a transaction under
 * exactly-once, an offset commit of the main consumer under at-least-once), every transaction aborted,
 * and every client error by name. A zombie's fencing shows there: Streams turns PRODUCER_FENCED,
 * INVALID_PRODUCER_EPOCH or a refused commit into a task migration, aborts, rejoins and carries on.
 */
final class WatchedClients implements KafkaClientSupplier {
    private final Report report;
    private final Runnable committed;

    /** {@code committed} runs after every commit that succeeded. */
    WatchedClients(Report report, Runnable committed) {
        this.report = report;
        this.committed = committed;
    }

    @Override
    public Admin getAdmin(Map<String, Object> config) {
        return Admin.create(config);
    }

    @Override
    public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
        Object transactionalId = config.get(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
        if (transactionalId != null) {
            report.put("transactional_id", String.valueOf(transactionalId));
        }
        return new WatchedProducer(config, report, committed);
    }

    @Override
    public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
        return new WatchedConsumer(config, report, committed);
    }

    @Override
    public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    @Override
    public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
        return getRestoreConsumer(config);
    }

    /** The producer of a stream thread: transactions committed and aborted, errors by name. */
    private static final class WatchedProducer extends KafkaProducer<byte[], byte[]> {
        private final Report report;
        private final Runnable committed;

        WatchedProducer(Map<String, Object> config, Report report, Runnable committed) {
            super(config, new ByteArraySerializer(), new ByteArraySerializer());
            this.report = report;
            this.committed = committed;
        }

        @Override
        public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record, Callback callback) {
            return super.send(record, (metadata, e) -> {
                if (e != null) {
                    report.error(Outcomes.name(e));
                }
                if (callback != null) {
                    callback.onCompletion(metadata, e);
                }
            });
        }

        @Override
        public void sendOffsetsToTransaction(Map<TopicPartition, OffsetAndMetadata> offsets,
                                             ConsumerGroupMetadata groupMetadata) {
            watch(() -> super.sendOffsetsToTransaction(offsets, groupMetadata));
        }

        @Override
        public void commitTransaction() {
            watch(super::commitTransaction);
            committed.run();
        }

        @Override
        public void abortTransaction() {
            watch(super::abortTransaction);
            report.count("aborts", 1);
        }

        private void watch(Runnable call) {
            try {
                call.run();
            } catch (KafkaException e) {
                report.error(Outcomes.name(e));
                throw e;
            }
        }
    }

    /** The main consumer of a stream thread: offset commits (at-least-once) made and refused. */
    private static final class WatchedConsumer extends KafkaConsumer<byte[], byte[]> {
        private final Report report;
        private final Runnable committed;

        WatchedConsumer(Map<String, Object> config, Report report, Runnable committed) {
            super(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
            this.report = report;
            this.committed = committed;
        }

        @Override
        public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
            try {
                super.commitSync(offsets);
            } catch (KafkaException e) {
                report.error(Outcomes.name(e));
                throw e;
            }
            committed.run();
        }
    }
}
