package kafkaeos;

import java.nio.charset.StandardCharsets;

/** Record ids and values, as harness.ledger and harness.workloads.producer make them. */
final class Values {
    private static final int SEQ_BITS = 32;
    static final long UNDECODABLE = -2; // harness.history.UNDECODABLE_ID
    static final String SOURCE_HEADER = "keh-source"; // harness.history.records.SOURCE_HEADER

    private Values() {
    }

    static long id(long session, long seq) {
        return session << SEQ_BITS | seq;
    }

    /** The record id of a value {@code <decimal id>|<padding>}, or {@link #UNDECODABLE} when it carries none. */
    static long decodeId(byte[] value) {
        int bar = 0;
        while (value != null && bar < value.length && value[bar] != '|') {
            bar++;
        }
        try {
            return Long.parseLong(new String(value == null ? new byte[0] : value, 0, bar, StandardCharsets.US_ASCII));
        } catch (NumberFormatException e) {
            return UNDECODABLE;
        }
    }

    /** {@code <id>|<padding>} of {@code valueBytes} bytes in all (more when the id alone is longer). */
    static byte[] encodeValue(long id, int valueBytes) {
        String head = id + "|";
        return (head + "x".repeat(Math.max(0, valueBytes - head.length()))).getBytes(StandardCharsets.US_ASCII);
    }
}
