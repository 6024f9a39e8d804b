package kafkaeos;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Which record ids a topic holds committed, read from its beginning up to its high watermarks. */
final class ReadBack {
    private static final Duration PATIENCE = Duration.ofSeconds(120);

    private ReadBack() {
    }

    /**
     * Those of {@code wanted} that {@code topic} holds in committed transactions (or outside any). The high
     * watermarks come from a read_uncommitted client (a read_committed one is told the last stable offset);
     * a read_committed reader's position moves past markers and aborted records, so reaching them means
     * everything below was seen.
     */
    static Set<Long> committed(String bootstrap, Map<String, Object> login, String topic, Set<Long> wanted) {
        Set<Long> found = new HashSet<>();
        Map<TopicPartition, Long> ends;
        try (KafkaConsumer<byte[], byte[]> marks = consumer(bootstrap, login, "read_uncommitted")) {
            List<TopicPartition> partitions = marks.partitionsFor(topic, PATIENCE).stream()
                .map(p -> new TopicPartition(topic, p.partition())).collect(Collectors.toList());
            ends = marks.endOffsets(partitions, PATIENCE);
        }
        try (KafkaConsumer<byte[], byte[]> reader = consumer(bootstrap, login, "read_committed")) {
            reader.assign(ends.keySet());
            reader.seekToBeginning(ends.keySet());
            Map<TopicPartition, Long> pending = new HashMap<>(ends);
            long deadline = System.nanoTime() + PATIENCE.toNanos();
            while (true) {
                pending.entrySet().removeIf(e -> reader.position(e.getKey(), PATIENCE) >= e.getValue());
                if (pending.isEmpty()) {
                    return found;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("read_committed read-back of " + topic + " did not reach the "
                        + "high watermarks within " + PATIENCE.toSeconds() + " s (behind: " + pending.keySet() + ")");
                }
                for (ConsumerRecord<byte[], byte[]> r : reader.poll(Duration.ofMillis(500))) {
                    long id = Values.decodeId(r.value());
                    if (wanted.contains(id)) {
                        found.add(id);
                    }
                }
            }
        }
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap, Map<String, Object> login,
                                                          String isolation) {
        Properties props = Spec.properties(login);
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}
