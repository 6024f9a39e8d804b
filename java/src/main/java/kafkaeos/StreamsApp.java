package kafkaeos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.errors.TaskMigratedException;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The Kafka Streams app: {@code java -cp ... kafkaeos.StreamsApp SPEC.json}, run by harness.workloads.streams.
 * It reads an input topic of harness records (key {@code k<n>}, value {@code <id>|<padding>}) and
 * <ul>
 *   <li>maps each input to one record of the output topic, value {@code <input id>|<app>}, so that outputs
 *   are counted per input;</li>
 *   <li>counts the inputs per key and sums their ids in a state store (RocksDB, logged to its changelog
 *   topic), and sends each key's running total, value {@code <count> <sum>}, to the aggregates topic. The
 *   store has no cache: every update reaches the store, the changelog and the aggregates topic as its input
 *   is processed, not at the next commit, so a crash between commits leaves effects of uncommitted input
 *   behind it under at-least-once.</li>
 * </ul>
 * {@code processing_guarantee} and {@code commit_interval_ms} come from the spec, with the application id,
 * state directory, bootstrap servers, login and any further property ({@code config}); each input costs
 * {@code delay_ms_per_record} of processing, to widen the time between a commit and the next.
 *
 * <p>It stops by itself, closing cleanly, once its group's committed input offsets (read as stable: a pending
 * transaction's are not) reach the input's end offsets taken when it started, or {@code expected_inputs}
 * records in all when the spec gives that number (input still being written).
 *
 * <p>It writes no ledger: Streams owns its producer and sends, commits and aborts on its own, so there is no
 * per-send point to record. What Streams handles silently is counted by {@link WatchedClients}.
 *
 * <p>The last line of output is the JSON report: {@code outcomes {processed, commits, aborts, rebalances,
 * restored}} (processed counts every input through the topology, again when reprocessed; restored the
 * changelog records read back into the store before processing), {@code processed_at_commit} (the inputs
 * its last commit covered), {@code errors} by name,
 * {@code transactional_id} (exactly-once), {@code first_processed_at} and {@code last_processed_at} (epoch
 * seconds); or {@code setup_error} (exit 2) when the configuration is refused; or {@code fenced} (exit 3) when
 * a fencing error stopped the app instead of a task migration; or {@code exception} (exit 1) when any other
 * error stopped a stream thread. With a {@code status_file} it also keeps its report so far there while it
 * runs: the harness reads how many inputs it has processed since its last commit.
 */
public final class StreamsApp {
    private static final int FAILED_EXIT = 1;
    private static final long POLL_MS = 500;
    private static final long STATUS_MS = 100;
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);
    private final Spec.Streams spec;
    private final Report report = new Report("processed", "commits", "aborts", "rebalances", "restored");
    private final AtomicReference<Throwable> fatal = new AtomicReference<>();
    private volatile long firstProcessedMs;
    private volatile long lastProcessedMs;

    private StreamsApp(Spec.Streams spec) {
        this.spec = spec;
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        StreamsApp app = new StreamsApp(Spec.Streams.read(args[0]));
        int exit = app.run();
        Report.print(app.report.snapshot());
        System.exit(exit);
    }

    private int run() throws InterruptedException {
        KafkaStreams streams;
        try {
            streams = new KafkaStreams(topology(), streamsConfig(), new WatchedClients(report, this::committed));
        } catch (KafkaException | IllegalArgumentException e) {
            Map<String, Object> error = Report.setupError(e, "create");
            // Streams refuses some combinations with IllegalArgumentException (e.g. a transaction
            // timeout below the commit interval under exactly-once): a configuration it refused too.
            error.put("config", (Boolean) error.get("config") || e instanceof IllegalArgumentException);
            report.put("setup_error", error);
            return ProducerApp.SETUP_EXIT;
        }
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.REBALANCING) {
                report.count("rebalances", 1);
            }
        });
        streams.setGlobalStateRestoreListener(new StateRestoreListener() {
            @Override
            public void onRestoreStart(TopicPartition changelog, String store, long start, long end) {
            }

            @Override
            public void onBatchRestored(TopicPartition changelog, String store, long batchEnd, long restored) {
            }

            @Override
            public void onRestoreEnd(TopicPartition changelog, String store, long restored) {
                report.count("restored", restored);
            }
        });
        streams.setUncaughtExceptionHandler(e -> {
            fatal.compareAndSet(null, e);
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        ScheduledExecutorService status = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "status");
            t.setDaemon(true);
            return t;
        });
        if (!spec.statusFile.isEmpty()) {
            status.scheduleAtFixedRate(this::writeStatus, 0, STATUS_MS, TimeUnit.MILLISECONDS);
        }
        try (Admin admin = Admin.create(clientConfig())) {
            Map<TopicPartition, Long> ends = inputEnds(admin);
            streams.start();
            while (fatal.get() == null && streams.state().isRunningOrRebalancing() && !caughtUp(admin, ends)) {
                Thread.sleep(POLL_MS);
            }
        } catch (ExecutionException | TimeoutException | KafkaException e) {
            fatal.compareAndSet(null, e);
        } finally {
            streams.close(CLOSE_WAIT);
            status.shutdownNow();
        }
        report.put("first_processed_at", firstProcessedMs / 1000.0);
        report.put("last_processed_at", lastProcessedMs / 1000.0);
        Throwable error = fatal.get();
        if (error == null) {
            return 0;
        }
        report.error(Outcomes.name(error));
        if (fencing(error)) {
            report.put("fenced", Report.error(error));
            return ProducerApp.FENCED_EXIT;
        }
        report.put("exception", Report.error(error));
        return FAILED_EXIT;
    }

    private Topology topology() {
        StreamsBuilder builder = new StreamsBuilder();
        KStream<String, String> inputs = builder
            .stream(spec.inputTopic, Consumed.with(Serdes.String(), Serdes.String()))
            .peek((key, value) -> processing());
        inputs.mapValues(value -> inputId(value) + "|" + spec.app)
            .to(spec.outputTopic, Produced.with(Serdes.String(), Serdes.String()));
        inputs.groupByKey(Grouped.with(Serdes.String(), Serdes.String()))
            .aggregate(
                () -> "0 0",
                (key, value, total) -> add(total, inputId(value)),
                Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as("totals")
                    .withKeySerde(Serdes.String())
                    .withValueSerde(Serdes.String())
                    .withCachingDisabled())
            .toStream()
            .to(spec.aggregatesTopic, Produced.with(Serdes.String(), Serdes.String()));
        return builder.build();
    }

    private Properties streamsConfig() {
        Properties props = clientConfig();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, spec.applicationId);
        props.put(StreamsConfig.STATE_DIR_CONFIG, spec.stateDir);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, spec.processingGuarantee);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, String.valueOf(spec.commitIntervalMs));
        props.putAll(Spec.properties(spec.config));
        return props;
    }

    private Properties clientConfig() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, spec.bootstrapServers);
        props.putAll(Spec.properties(spec.login));
        return props;
    }

    /** After a commit: every input processed so far is covered (the stream thread commits between inputs). */
    private void committed() {
        synchronized (report) {
            report.count("commits", 1);
            report.put("processed_at_commit", report.outcome("processed"));
        }
    }

    /**
     * Where the app stands, for the harness to read while it runs: its report so far, rewritten whole
     * (a new file moved into place) every {@link #STATUS_MS}.
     */
    private void writeStatus() {
        Path status = Path.of(spec.statusFile);
        Path next = status.resolveSibling(status.getFileName() + ".next");
        try {
            Files.writeString(next, Report.json(report.snapshot()));
            Files.move(next, status, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            report.error("STATUS_NOT_WRITTEN");
        }
    }

    private void processing() {
        long now = System.currentTimeMillis();
        if (firstProcessedMs == 0) {
            firstProcessedMs = now;
        }
        lastProcessedMs = now;
        report.count("processed", 1);
        long until = System.nanoTime() + (long) (spec.delayMsPerRecord * 1_000_000L);
        for (long wait = until - System.nanoTime(); wait > 0; wait = until - System.nanoTime()) {
            LockSupport.parkNanos(wait);
        }
    }

    private static long inputId(String value) {
        return Values.decodeId(value == null ? null : value.getBytes(StandardCharsets.US_ASCII));
    }

    /** A running total {@code <count> <sum>} with one more input. */
    private static String add(String total, long id) {
        String[] parts = total.split(" ");
        return (Long.parseLong(parts[0]) + 1) + " " + (Long.parseLong(parts[1]) + id);
    }

    /** The input's end offsets now, before any of it is processed. */
    private Map<TopicPartition, Long> inputEnds(Admin admin)
        throws ExecutionException, InterruptedException, TimeoutException {
        TopicDescription topic = admin.describeTopics(List.of(spec.inputTopic)).allTopicNames()
            .get(30, TimeUnit.SECONDS).get(spec.inputTopic);
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        topic.partitions().forEach(p -> latest.put(new TopicPartition(spec.inputTopic, p.partition()), OffsetSpec.latest()));
        Map<TopicPartition, Long> ends = new HashMap<>();
        admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).forEach((tp, info) -> ends.put(tp, info.offset()));
        return ends;
    }

    /**
     * The group's committed offsets cover the input: each partition's end taken at the start, or
     * {@code expected_inputs} in all. Asked as stable offsets, so a transaction still open is not taken for
     * done; an answer that cannot be had now (a coordinator moving, offsets pending) is "not yet".
     */
    private boolean caughtUp(Admin admin, Map<TopicPartition, Long> ends) throws InterruptedException {
        Map<TopicPartition, OffsetAndMetadata> committed;
        try {
            committed = admin.listConsumerGroupOffsets(spec.applicationId,
                    new ListConsumerGroupOffsetsOptions().requireStable(true))
                .partitionsToOffsetAndMetadata().get(5, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException | KafkaException e) {
            return false;
        }
        long total = 0;
        boolean covered = true;
        for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            OffsetAndMetadata at = committed.get(end.getKey());
            long offset = at == null ? 0 : at.offset();
            total += offset;
            covered &= offset >= end.getValue();
        }
        return spec.expectedInputs > 0 ? total >= spec.expectedInputs : covered;
    }

    private static boolean fencing(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof ProducerFencedException || t instanceof InvalidProducerEpochException
                || t instanceof TaskMigratedException) {
                return true;
            }
        }
        return false;
    }
}
