package kafkaeos;

import java.nio.charset.StandardCharsets;

/** Record ids and values, as harness.history.records makes and decodes them. */
final class Values {
    private static final int SEQ_BITS = 32;
    static final long UNDECODABLE = -2; // harness.history.records.UNDECODABLE_ID
    static final String SOURCE_HEADER = "keh-source"; // harness.history.records.SOURCE_HEADER
    private static final int MAX_DIGITS = 19; // Long.MAX_VALUE has 19 digits

    private Values() {
    }

    static long id(long session, long seq) {
        return session << SEQ_BITS | seq;
    }

    /**
     * The record id of a value {@code <decimal id>|<padding>}, or {@link #UNDECODABLE} when it carries none: by
     * harness.history.records.decode_id's rule, the head (all before the first {@code |}) must be the canonical
     * decimal of a non-negative long (ASCII digits, no sign, blank or leading zero), so no value decodes to a
     * reserved negative id such as the marker's -1.
     */
    static long decodeId(byte[] value) {
        int bar = 0;
        while (value != null && bar < value.length && value[bar] != '|') {
            bar++;
        }
        if (bar == 0 || bar > MAX_DIGITS || (value[0] == '0' && bar > 1)) {
            return UNDECODABLE;
        }
        for (int i = 0; i < bar; i++) {
            if (value[i] < '0' || value[i] > '9') {
                return UNDECODABLE;
            }
        }
        try {
            return Long.parseLong(new String(value, 0, bar, StandardCharsets.US_ASCII));
        } catch (NumberFormatException e) { // 19 digits above Long.MAX_VALUE
            return UNDECODABLE;
        }
    }

    /** {@code <id>|<padding>} of {@code valueBytes} bytes in all (more when the id alone is longer). */
    static byte[] encodeValue(long id, int valueBytes) {
        String head = id + "|";
        return (head + "x".repeat(Math.max(0, valueBytes - head.length()))).getBytes(StandardCharsets.US_ASCII);
    }
}
