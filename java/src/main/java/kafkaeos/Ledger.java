package kafkaeos;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.function.LongSupplier;

/**
 * One process's ledger, byte for byte as {@code harness.history.ledger.LedgerWriter} writes it, and written
 * the same way (see there for the columns, events and why): {@code invoke} lines a chunk at a time, and
 * {@code session}, {@code txn-*}, {@code offsets-commit}, {@code offsets-committed} and {@code fenced}
 * lines, are in the kernel when the call returns, in one unbuffered {@code write()} with whatever was
 * collected before them; the outcome lines ({@code ok}, {@code fail}, {@code info}) are collected and
 * written by the next {@link #flush()} (the main thread's, once per chunk or batch), by the next line
 * written at once, or by the client's I/O thread itself once {@code collectAtMost} of them wait. A SIGKILL
 * leaves the collected ones unwritten: their sends are indeterminate, as if still in flight. Callbacks of
 * the I/O thread and the main thread both write: the ledger is serialised.
 */
final class Ledger implements AutoCloseable {
    private static final String HEADER = "event,time_us,session,id,key,topic,partition,offset,txn,source,detail,end";
    private final FileOutputStream out;
    private final int collectAtMost;
    private final LongSupplier clockUs;
    private final StringBuilder collected = new StringBuilder(1 << 16);
    private int collectedLines;
    // Acknowledgements as callbacks report them, made into ok lines at once (one clock read) before
    // anything else is collected or written, as the Python writer does.
    private long[] ackIds = new long[1024];
    private int[] ackPartitions = new int[1024];
    private long[] ackOffsets = new long[1024];
    private int acks;

    /** {@code collectAtMost}: outcome lines collected before the thread that reports one writes them all. */
    Ledger(Path path, int collectAtMost) throws IOException {
        this(path, collectAtMost, Ledger::nowUs);
    }

    /** {@code clockUs}: the time each line is stamped with (a test's fixed clock; the wall clock otherwise). */
    Ledger(Path path, int collectAtMost, LongSupplier clockUs) throws IOException {
        this.collectAtMost = collectAtMost;
        this.clockUs = clockUs;
        Path parent = path.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        boolean fresh = !Files.exists(path) || Files.size(path) == 0;
        out = new FileOutputStream(path.toFile(), true);
        if (fresh) {
            collected.append(HEADER).append('\n');
            flush();
        }
    }

    static long nowUs() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    void session(long session, String transactionalId) {
        atOnce("session", session, null, transactionalId);
    }

    /**
     * The {@code invoke} lines of a chunk of sends, all at the time they are written: per send its id, and
     * its key and source when {@code keys} / {@code sources} are given (an element may be null). When this
     * returns they are in the kernel, and only then may the records be handed to the client.
     */
    synchronized void invokes(long session, long[] ids, String topic, String[] keys, Long txn, Long[] sources) {
        stampAcks();
        long now = clockUs.getAsLong();
        for (int i = 0; i < ids.length; i++) {
            line("invoke", now, session, ids[i], keys == null ? null : keys[i], topic, null, null, txn,
                sources == null ? null : sources[i], null);
        }
        flush();
    }

    /** Timed when it is made into a line: acknowledgements collected together share one time. */
    synchronized void ok(long id, int partition, long offset) {
        if (acks == ackIds.length) {
            ackIds = Arrays.copyOf(ackIds, acks * 2);
            ackPartitions = Arrays.copyOf(ackPartitions, acks * 2);
            ackOffsets = Arrays.copyOf(ackOffsets, acks * 2);
        }
        ackIds[acks] = id;
        ackPartitions[acks] = partition;
        ackOffsets[acks++] = offset;
        if (++collectedLines >= collectAtMost) {
            flush();
        }
    }

    void fail(long id, String error) {
        outcome("fail", id, null, null, error);
    }

    void info(long id, String error) {
        outcome("info", id, null, null, error);
    }

    /** {@code state}: begin, commit, committed, aborted or unknown. */
    void txn(String state, long session, long txn, String detail) {
        atOnce("txn-" + state, session, txn, detail);
    }

    void fenced(long session, String error) {
        atOnce("fenced", session, null, error);
    }

    /** A plain consume-transform-produce app is about to commit its consumer offsets. */
    void offsetsCommit(long session) {
        atOnce("offsets-commit", session, null, null);
    }

    /** That commit returned without error (written by an at-most-once app, before its outputs). */
    void offsetsCommitted(long session) {
        atOnce("offsets-committed", session, null, null);
    }

    private synchronized void outcome(String event, long id, Integer partition, Long offset, String detail) {
        stampAcks();
        line(event, clockUs.getAsLong(), null, id, null, null, partition, offset, null, null, detail);
        if (++collectedLines >= collectAtMost) {
            flush();
        }
    }

    private synchronized void atOnce(String event, long session, Long txn, String detail) {
        stampAcks();
        line(event, clockUs.getAsLong(), session, null, null, null, null, null, txn, null, detail);
        flush();
    }

    private void line(String event, long timeUs, Long session, Long id, String key, String topic, Integer partition,
                      Long offset, Long txn, Long source, String detail) {
        Object[] fields = {session, id, key, topic, partition, offset, txn, source, detail};
        collected.append(event).append(',').append(timeUs);
        for (Object field : fields) {
            collected.append(',');
            if (field != null) {
                collected.append(quoted(field.toString()));
            }
        }
        collected.append(",.\n");
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

    private void stampAcks() {
        if (acks == 0) {
            return;
        }
        long now = clockUs.getAsLong();
        for (int i = 0; i < acks; i++) {
            line("ok", now, null, ackIds[i], null, null, ackPartitions[i], ackOffsets[i], null, null, null);
        }
        acks = 0;
    }

    /** Write the collected lines in one {@code write()}. */
    synchronized void flush() {
        stampAcks();
        if (collected.length() == 0) {
            return;
        }
        try {
            out.write(collected.toString().getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            collected.setLength(0);
            collectedLines = 0;
        }
    }

    @Override
    public synchronized void close() throws IOException {
        flush();
        out.close();
    }
}
