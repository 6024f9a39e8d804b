package kafkaeos;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * One process's ledger, byte for byte as {@code harness.ledger.LedgerWriter} writes it (see there for the
 * columns and events). Every line is one {@code write()} of the complete line, unbuffered, so a SIGKILL
 * loses at most the line being written. Callbacks of the client's I/O thread write too: lines are
 * serialised.
 */
final class Ledger implements AutoCloseable {
    private static final String HEADER = "event,time_us,session,id,key,topic,partition,offset,txn,source,detail,end";
    private final FileOutputStream out;

    Ledger(Path path) throws IOException {
        Path parent = path.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        boolean fresh = !Files.exists(path) || Files.size(path) == 0;
        out = new FileOutputStream(path.toFile(), true);
        if (fresh) {
            write(HEADER + "\n");
        }
    }

    static long nowUs() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    void session(long session, String transactionalId) {
        row("session", session, null, null, null, null, null, null, null, transactionalId);
    }

    void invoke(long session, long id, String topic, String key, Long txn, Long source) {
        row("invoke", session, id, key, topic, null, null, txn, source, null);
    }

    void ok(long id, int partition, long offset) {
        row("ok", null, id, null, null, partition, offset, null, null, null);
    }

    void fail(long id, String error) {
        row("fail", null, id, null, null, null, null, null, null, error);
    }

    void info(long id, String error) {
        row("info", null, id, null, null, null, null, null, null, error);
    }

    /** {@code state}: begin, commit, committed, aborted or unknown. */
    void txn(String state, long session, long txn, String detail) {
        row("txn-" + state, session, null, null, null, null, null, txn, null, detail);
    }

    void fenced(long session, String error) {
        row("fenced", session, null, null, null, null, null, null, null, error);
    }

    private void row(String event, Long session, Long id, String key, String topic, Integer partition, Long offset,
                     Long txn, Long source, String detail) {
        Object[] fields = {event, nowUs(), session, id, key, topic, partition, offset, txn, source, detail, "."};
        StringBuilder line = new StringBuilder(96);
        for (Object field : fields) {
            if (line.length() > 0) {
                line.append(',');
            }
            line.append(field == null ? "" : quoted(field.toString()));
        }
        write(line.append('\n').toString());
    }

    /**
     * Python's csv writer with {@code lineterminator="\n"} (QUOTE_MINIMAL) quotes a field holding the
     * delimiter, the quote character or a character of the line terminator, and doubles its quotes. A
     * lone {@code \r} is not quoted there (Python 3.11), so not here either.
     */
    static String quoted(String field) {
        if (field.indexOf(',') < 0 && field.indexOf('"') < 0 && field.indexOf('\n') < 0) {
            return field;
        }
        return '"' + field.replace("\"", "\"\"") + '"';
    }

    private synchronized void write(String line) {
        try {
            out.write(line.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
