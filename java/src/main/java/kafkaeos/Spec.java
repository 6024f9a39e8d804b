package kafkaeos;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

/**
 * The apps' specs: the JSON file named by their only argument, with the fields of Python's
 * {@code ProducerSpec} and {@code TransformerSpec}, or of the Streams spec that harness.workloads.streams
 * writes (snake_case there, camelCase here). Client settings are already Java client property names. An
 * unknown field is an error: a spec meant for another app, or a field this one would silently ignore.
 */
final class Spec {
    private static final ObjectMapper JSON =
        new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);

    private Spec() {
    }

    static <T extends Common> T read(String path, Class<T> type) throws IOException {
        T spec = JSON.readValue(Path.of(path).toFile(), type);
        if (spec.bootstrapServers == null || spec.ledger == null) {
            throw new IllegalArgumentException(path + ": bootstrap_servers and ledger are required");
        }
        if (!spec.resumeFrom.isEmpty()) {
            throw new IllegalArgumentException(path + ": the Java apps resume from `resume` (planned by the "
                + "harness), not by reading `resume_from` ledgers");
        }
        return spec;
    }

    /** Client properties from JSON values: strings as they are, lists comma-separated. */
    static Properties properties(Map<String, Object> values) {
        Properties props = new Properties();
        values.forEach((name, value) -> props.put(name, value instanceof List<?> list
            ? list.stream().map(String::valueOf).collect(Collectors.joining(","))
            : String.valueOf(value)));
        return props;
    }

    /** Fields both apps have. */
    abstract static class Common {
        public String bootstrapServers;
        public String ledger;
        public long session = 1;
        public int valueBytes = 100;
        public Map<String, Object> login = Map.of();
        public List<String> resumeFrom = List.of();
    }

    static final class Producer extends Common {
        public String topic;
        public int count = 2000;
        public double ratePerS = 200.0;
        /** Bursts of this many records at the rate, each followed by a pause of {@code pauseS} (0: steady). */
        public int burst;
        public double pauseS;
        public int chunk = 1000;
        public int keys;
        public Map<String, Object> config = Map.of();
        public int txnSize = 10;
        public double txnMs;
        public int abortEvery;
        public int duplicateEvery;
        /** "retry" a commit that failed with a retriable error, or "resend" its records from a fresh producer (a bug). */
        public String onCommitError = "retry";
        /** How long a commit may block: the producer's max.block.ms, unless its config sets one. */
        public double commitTimeoutS = 60.0;
        /** After a transaction the app did not mean to abort was aborted, wait this long (backing off). */
        public int pauseAfterAbortMs;
        /** Each transaction's first record is sent alone and acknowledged before the rest. */
        public boolean openFirst;
        public boolean sourceHeader;
        public double flushTimeoutS = 120.0;
        public ProducerResume resume;
    }

    static final class Transformer extends Common {
        public String inputTopic;
        /** The input topic's partitions, for the idle check (the brokers are not asked, as in the Python app). */
        public int inputPartitions;
        public String outputTopic;
        public String groupId;
        public String mode = "transactional";
        public String transactionalId = "";
        public int batchSize = 50;
        public int pauseBeforeCommitMs;
        public int abortEvery;
        public double idleExitS = 6.0;
        public double joinGraceS = 20.0;
        public Map<String, Object> producerConfig = Map.of();
        public Map<String, Object> consumerConfig = Map.of();
        public String sinkDb = "";
        public TransformerResume resume;
    }

    /**
     * The Streams app's spec. It has no ledger (Streams owns its producer), so it is not a {@link Common}.
     * {@code config} holds further Streams and client properties; {@code expected_inputs} 0 means "the
     * input present at start"; {@code status_file} empty: no status written while it runs.
     */
    static final class Streams {
        public String app;
        public String bootstrapServers;
        public String applicationId;
        public String inputTopic;
        public String outputTopic;
        public String aggregatesTopic;
        public String stateDir;
        public String processingGuarantee = "at_least_once";
        public long commitIntervalMs = 30_000;
        public double delayMsPerRecord;
        public long expectedInputs;
        public String statusFile = "";
        public Map<String, Object> config = Map.of();
        public Map<String, Object> login = Map.of();

        static Streams read(String path) throws IOException {
            Streams spec = JSON.readValue(Path.of(path).toFile(), Streams.class);
            if (spec.bootstrapServers == null || spec.applicationId == null || spec.inputTopic == null
                || spec.outputTopic == null || spec.aggregatesTopic == null || spec.stateDir == null) {
                throw new IllegalArgumentException(path + ": bootstrap_servers, application_id, input_topic, "
                    + "output_topic, aggregates_topic and state_dir are required");
            }
            return spec;
        }
    }

    /** Where a restarted transformer carries on its session: its next record seq and transaction number. */
    static class TransformerResume {
        public int nextSeq;
        public int nextTxn;
    }

    /** A restarted producer's plan, made by the harness from the earlier ledgers (see ProducerApp). */
    static final class ProducerResume extends TransformerResume {
        public List<Integer> resend = List.of();
        public List<Integer> inDoubt = List.of();
    }
}
