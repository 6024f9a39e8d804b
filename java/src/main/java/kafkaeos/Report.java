package kafkaeos;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.InvalidTxnTimeoutException;

/**
 * An app's report: outcome counts, error names and whatever else it adds, printed as JSON on the last line
 * of standard output (harness.workloads.process reads the last JSON line), with {@code client_version}: the
 * release of the kafka-clients jar the app runs on (the class path decides, not the build). Counted from the
 * client's I/O thread and the main thread, and read by the watchdog's: every access is serialised.
 */
final class Report {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String CLIENT_VERSION = clientVersion();
    private final Map<String, Long> outcomes = new LinkedHashMap<>();
    private final Map<String, Long> errors = new TreeMap<>();
    private final Map<String, Object> extra = new LinkedHashMap<>();

    Report(String... outcomeNames) {
        for (String name : outcomeNames) {
            outcomes.put(name, 0L);
        }
        extra.put("client_version", CLIENT_VERSION);
    }

    synchronized void count(String outcome, long n) {
        outcomes.merge(outcome, n, Long::sum);
    }

    synchronized long outcome(String name) {
        return outcomes.getOrDefault(name, 0L);
    }

    synchronized void error(String name) {
        errors.merge(name, 1L, Long::sum);
    }

    synchronized void put(String key, Object value) {
        extra.put(key, value);
    }

    synchronized Map<String, Object> snapshot() {
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("outcomes", new LinkedHashMap<>(outcomes));
        report.put("errors", new TreeMap<>(errors));
        report.putAll(extra);
        return report;
    }

    static Map<String, Object> error(Throwable e) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("error", Outcomes.name(e));
        error.put("message", Outcomes.message(e));
        return error;
    }

    /**
     * A client that could not start: {@code config} when it refused its configuration (the Python apps'
     * librdkafka says _INVALID_ARG or INVALID_TRANSACTION_TIMEOUT there); {@code stage} create or
     * init_transactions.
     */
    static Map<String, Object> setupError(Throwable e, String stage) {
        Map<String, Object> error = error(e);
        boolean config = false;
        for (Throwable t = e; t != null; t = t.getCause()) {
            config |= t instanceof ConfigException || t instanceof InvalidTxnTimeoutException;
        }
        error.put("config", config);
        error.put("stage", stage);
        return error;
    }

    /**
     * The release of the kafka-clients jar on the class path, from the properties file every release carries
     * ({@code kafka/kafka-version.properties}); not from its AppInfoParser, which 4.4 moved to an internal package.
     */
    private static String clientVersion() {
        Properties release = new Properties();
        try (InputStream in = KafkaProducer.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            if (in != null) {
                release.load(in);
            }
        } catch (IOException e) {
            return "unknown";
        }
        return release.getProperty("version", "unknown");
    }

    static void print(Map<String, Object> report) {
        System.out.println(json(report));
        System.out.flush();
    }

    static String json(Map<String, Object> report) {
        try {
            return JSON.writeValueAsString(report);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
