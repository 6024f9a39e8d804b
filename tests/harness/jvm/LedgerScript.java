package kafkaeos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Plays a golden ledger script (tests/harness/history/golden.py) on the apps' {@link Ledger}: {@code
 * LedgerScript SCRIPT CLOCK_START OUT}. In package kafkaeos to reach the package-private writer; compiled by
 * the test against the app jar, never shipped in it.
 */
public final class LedgerScript {
    private LedgerScript() {
    }

    public static void main(String[] args) throws Exception {
        AtomicLong clock = new AtomicLong(Long.parseLong(args[1]));
        ObjectMapper json = new ObjectMapper();
        // Collect outcome lines until a flush or a line written at once, as the Python writer does.
        try (Ledger ledger = new Ledger(Path.of(args[2]), Integer.MAX_VALUE, clock::getAndIncrement)) {
            for (String line : Files.readAllLines(Path.of(args[0]))) {
                JsonNode call = json.readTree(line);
                switch (call.get(0).asText()) {
                    case "session" -> ledger.session(call.get(1).asLong(), text(call.get(2)));
                    case "invokes" -> ledger.invokes(call.get(1).asLong(), longs(call.get(2)), call.get(3).asText(),
                        texts(call.get(4)), call.get(5).isNull() ? null : call.get(5).asLong(), boxed(call.get(6)));
                    case "ok" -> ledger.ok(call.get(1).asLong(), call.get(2).asInt(), call.get(3).asLong());
                    case "fail" -> ledger.fail(call.get(1).asLong(), call.get(2).asText());
                    case "info" -> ledger.info(call.get(1).asLong(), call.get(2).asText());
                    case "txn" -> ledger.txn(call.get(1).asText(), call.get(2).asLong(), call.get(3).asLong(),
                        text(call.get(4)));
                    case "fenced" -> ledger.fenced(call.get(1).asLong(), call.get(2).asText());
                    case "offsets_commit" -> ledger.offsetsCommit(call.get(1).asLong());
                    case "flush" -> ledger.flush();
                    default -> throw new IllegalArgumentException("unknown call " + call);
                }
            }
        }
    }

    private static String text(JsonNode node) {
        return node.isNull() ? null : node.asText();
    }

    private static long[] longs(JsonNode node) {
        long[] out = new long[node.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = node.get(i).asLong();
        }
        return out;
    }

    private static String[] texts(JsonNode node) {
        if (node.isNull()) {
            return null;
        }
        String[] out = new String[node.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = text(node.get(i));
        }
        return out;
    }

    private static Long[] boxed(JsonNode node) {
        if (node.isNull()) {
            return null;
        }
        Long[] out = new Long[node.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = node.get(i).isNull() ? null : node.get(i).asLong();
        }
        return out;
    }
}
