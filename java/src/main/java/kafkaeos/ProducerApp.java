package kafkaeos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The producer app on Kafka's Java client: {@code java -cp ... kafkaeos.ProducerApp SPEC.json}, the twin of
 * harness.workloads.producer. It sends records {@code <id>|<padding>} with ids {@code session << 32 | seq},
 * record {@code seq} due at {@code start + i / rate_per_s} for the i-th send, writing its ledger. Like its
 * twin it sends in chunks of the records due, at most {@code chunk}: their {@code invoke} lines in one write,
 * then the records to the client (see {@link Ledger}). The spec's
 * {@code config} is handed to {@code KafkaProducer} as it is: idempotent or not as it says, and with a
 * {@code transactional.id} in transactions of {@code txn_size} records (or fewer: with {@code txn_ms}, a
 * transaction also ends once it has been open that long), every {@code abort_every}-th of them aborted on
 * purpose after its records are written. A commit that fails with a retriable error (a timeout after
 * {@code commit_timeout_s}, the producer's max.block.ms unless its config sets one) is asked again, or, with
 * {@code on_commit_error: "resend"} (an application bug), taken for not done: its records are sent again by a
 * fresh producer. After a transaction it did not mean to abort was aborted it waits {@code pause_after_abort_ms}.
 *
 * <p>Resuming after a restart is planned by the harness from the earlier ledgers and given as
 * {@code resume: {resend, in_doubt, next_seq, next_txn}} (absent or null on a first start):
 * <ul>
 *   <li>{@code resend}: seqs sent before without the outcome the app needs (acknowledged when not
 *   transactional, committed when transactional); they are sent first, in that order, with their old ids;</li>
 *   <li>{@code in_doubt} (a subset of {@code resend}): seqs of transactions whose commit was asked for but
 *   never answered. After {@code initTransactions}, which finishes or aborts the old transaction, the app
 *   reads the topic back read_committed from the beginning up to the high watermarks (taken read_uncommitted)
 *   and drops from {@code resend} every in-doubt seq whose id it finds there;</li>
 *   <li>then the new seqs {@code next_seq .. count-1}; transaction numbers start at {@code next_txn}.</li>
 * </ul>
 * The report's {@code resent} is the number of seqs of {@code resend} actually sent again.
 *
 * <p>The last line of output is the JSON report: {@code outcomes {ok, fail, info, unfinished}},
 * {@code errors}, {@code longest_ack_gap_s} (the longest time without an acknowledgement), {@code resent};
 * or {@code setup_error {error, message, config, stage}} (exit 2) when the client refused its configuration
 * or {@code initTransactions} failed; or {@code fenced {error, message}} (exit 3) when a newer producer took
 * its transactional.id or another fatal error stopped it; or {@code stuck} (exit 4, see {@link Watchdog}).
 */
public final class ProducerApp {
    static final int SETUP_EXIT = 2;
    static final int FENCED_EXIT = 3;
    private final Spec.Producer spec;
    private final Ledger ledger;
    private final Report report = new Report("ok", "fail", "info", "unfinished");
    private KafkaProducer<byte[], byte[]> producer;
    private final Properties props = new Properties();
    private long started;
    private int sent;
    // Guarded by this: the client's I/O thread completes sends while the main thread makes them.
    private long lastAck;
    private double longestAckGapS;
    private int inFlight;
    private boolean gaveUp; // past the flush timeout: later outcomes are not recorded

    private ProducerApp(Spec.Producer spec, Ledger ledger) {
        this.spec = spec;
        this.ledger = ledger;
        report.put("longest_ack_gap_s", 0.0);
        report.put("resent", 0);
        Watchdog.reportWith(report::snapshot);
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        Spec.Producer spec = Spec.read(args[0], Spec.Producer.class);
        ProducerApp app;
        int exit;
        try (Ledger ledger = new Ledger(Path.of(spec.ledger), spec.chunk)) {
            app = new ProducerApp(spec, ledger);
            exit = app.run();
        }
        Report.print(app.report.snapshot());
        System.exit(exit);
    }

    private int run() throws InterruptedException {
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, spec.bootstrapServers);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, String.valueOf((long) (spec.commitTimeoutS * 1000)));
        props.putAll(Spec.properties(spec.config));
        props.putAll(Spec.properties(spec.login));
        String transactionalId = props.getProperty(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
        double blockS = Double.parseDouble(props.getProperty(ProducerConfig.MAX_BLOCK_MS_CONFIG, "60000")) / 1000;
        String stage = "create";
        try {
            producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
            started = lastAck = System.nanoTime();
            if (transactionalId != null) {
                stage = "init_transactions";
                Watchdog.bounded("initTransactions", blockS, producer::initTransactions);
            }
        } catch (KafkaException e) {
            report.put("setup_error", Report.setupError(e, stage));
            if (producer != null) {
                producer.close(Duration.ZERO);
            }
            return SETUP_EXIT;
        }
        ledger.session(spec.session, transactionalId);
        Spec.ProducerResume resume = spec.resume != null ? spec.resume : new Spec.ProducerResume();
        List<Integer> seqs = resendable(resume);
        report.put("resent", seqs.size());
        for (int seq = resume.nextSeq; seq < spec.count; seq++) {
            seqs.add(seq);
        }
        try {
            if (transactionalId == null) {
                send(seqs, null, Long.MAX_VALUE);
                // Whatever is still in flight has no outcome: the checker counts it as indeterminate.
                int unfinished = awaitDeliveries(spec.flushTimeoutS);
                report.count("unfinished", unfinished);
                producer.close(Duration.ofSeconds(unfinished > 0 ? 0 : 30));
            } else {
                transactions(seqs, resume.nextTxn, blockS);
                producer.close(Duration.ofSeconds(30));
            }
        } catch (KafkaException | IllegalStateException e) {
            if (Outcomes.retriable(e)) {
                throw e; // a commit that never answered: neither fenced nor finished, as in the Python app
            }
            ledger.fenced(spec.session, Outcomes.name(e));
            report.put("fenced", Report.error(e));
            producer.close(Duration.ZERO);
            return FENCED_EXIT;
        }
        return 0;
    }

    /** {@code resume.resend} without the in-doubt seqs the log holds committed. */
    private List<Integer> resendable(Spec.ProducerResume resume) {
        List<Integer> resend = new ArrayList<>(resume.resend);
        if (!resume.inDoubt.isEmpty()) {
            Set<Long> wanted = new HashSet<>();
            resume.inDoubt.forEach(seq -> wanted.add(Values.id(spec.session, seq)));
            Set<Long> found = ReadBack.committed(spec.bootstrapServers, spec.login, spec.topic, wanted);
            resend.removeIf(seq -> found.contains(Values.id(spec.session, seq)));
        }
        return resend;
    }

    /** Transactions of {@code txn_size} records, each ended early once open {@code txn_ms} (when set). */
    private void transactions(List<Integer> seqs, long firstTxn, double blockS) {
        boolean resend = "resend".equals(spec.onCommitError);
        int attempts = resend ? 1 : Transactions.ATTEMPTS;
        Transactions ends = new Transactions(producer, ledger, spec.session, blockS, attempts);
        long txn = firstTxn;
        for (int first = 0; first < seqs.size(); txn++) {
            producer.beginTransaction();
            ledger.txn("begin", spec.session, txn, null);
            List<Integer> these = seqs.subList(first, Math.min(first + spec.txnSize, seqs.size()));
            long until = spec.txnMs > 0 ? System.nanoTime() + (long) (spec.txnMs * 1e6) : Long.MAX_VALUE;
            long number = txn;
            int[] sent = new int[1];
            boolean abort = Transactions.abortsOnPurpose(spec.abortEvery, txn);
            try {
                String outcome = ends.end(txn, abort, () -> sent[0] = sendOpeningFirst(these, number, until));
                first += sent[0];
                if (Transactions.ABORTED.equals(outcome) && !abort) {
                    ledger.flush();
                    LockSupport.parkNanos(spec.pauseAfterAbortMs * 1_000_000L);
                }
            } catch (KafkaException e) {
                if (!resend || Outcomes.fatal(e)) {
                    throw e;
                }
                // The bug: the records go again, in the next transaction, from a fresh producer whose
                // initTransactions fences the old one (the coordinator finishes its transaction first).
                producer.close(Duration.ZERO);
                producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
                Watchdog.bounded("initTransactions", blockS, producer::initTransactions);
                ends = new Transactions(producer, ledger, spec.session, blockS, 1);
            }
        }
    }

    /** {@link #send}, with the first record alone and acknowledged first when the spec says {@code open_first}. */
    private int sendOpeningFirst(List<Integer> seqs, long txn, long until) {
        if (!spec.openFirst || seqs.size() < 2) {
            return send(seqs, txn, until);
        }
        int first = send(seqs.subList(0, 1), txn, until);
        producer.flush();
        return first + send(seqs.subList(1, seqs.size()), txn, until);
    }

    /**
     * Send {@code seqs} in chunks, each record when it falls due at the spec's rate, and no chunk after
     * {@code until} ({@link System#nanoTime()}) but the first; returns how many were sent.
     */
    private int send(List<Integer> seqs, Long txn, long until) {
        int done = 0;
        while (done < seqs.size() && (done == 0 || System.nanoTime() < until)) {
            long lateNs = System.nanoTime() - started;
            long due = Math.min(Math.min(dueBy(lateNs / 1e9) - sent, spec.chunk), seqs.size() - done);
            if (due <= 0) { // the next record is not due yet: write the outcomes collected meanwhile, then wait
                ledger.flush();
                LockSupport.parkNanos((long) (dueAt(sent) * 1e9) - lateNs);
                continue;
            }
            chunk(seqs.subList(done, done + (int) due), txn);
            done += (int) due;
            sent += (int) due;
        }
        return done;
    }

    /** How many records have fallen due {@code lateS} seconds after the start (bursts and pauses as the spec says). */
    private long dueBy(double lateS) {
        if (spec.burst == 0) {
            return (long) (lateS * spec.ratePerS) + 1;
        }
        double cycle = spec.burst / spec.ratePerS + spec.pauseS;
        long cycles = (long) Math.floor(lateS / cycle);
        double within = lateS - cycles * cycle;
        return cycles * spec.burst + Math.min(spec.burst, (long) (within * spec.ratePerS) + 1);
    }

    /** Seconds after the start at which record {@code n} (from 0) falls due. */
    private double dueAt(long n) {
        if (spec.burst == 0) {
            return n / spec.ratePerS;
        }
        return (n / spec.burst) * (spec.burst / spec.ratePerS + spec.pauseS) + (n % spec.burst) / spec.ratePerS;
    }

    /** Ledger the chunk's sends, then hand them to the client (twice, when the app bug says so). */
    private void chunk(List<Integer> seqs, Long txn) {
        List<Integer> sends = new ArrayList<>(seqs.size());
        for (int seq : seqs) {
            boolean twice = spec.duplicateEvery > 0 && seq % spec.duplicateEvery == spec.duplicateEvery - 1;
            sends.add(seq);
            if (twice) {
                sends.add(seq);
            }
        }
        long[] ids = new long[sends.size()];
        String[] keys = spec.keys > 0 ? new String[sends.size()] : null;
        for (int i = 0; i < ids.length; i++) {
            ids[i] = Values.id(spec.session, sends.get(i));
            if (keys != null) {
                keys[i] = "k" + sends.get(i) % spec.keys;
            }
        }
        ledger.invokes(spec.session, ids, spec.topic, keys, txn, null);
        synchronized (this) {
            inFlight += ids.length;
        }
        for (int i = 0; i < ids.length; i++) {
            long id = ids[i];
            ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(spec.topic,
                keys == null ? null : keys[i].getBytes(StandardCharsets.UTF_8), Values.encodeValue(id, spec.valueBytes));
            if (spec.sourceHeader) {
                record.headers().add(Values.SOURCE_HEADER, Long.toString(id).getBytes(StandardCharsets.US_ASCII));
            }
            try {
                producer.send(record, (metadata, e) -> delivered(id, metadata, e));
            } catch (KafkaException e) {
                // Thrown, not called back: never appended, so surely not written, nor the rest of the chunk; and
                // the producer is in an error state (the transaction's end will tell which) or closed.
                for (int never = i; never < ids.length; never++) {
                    failed(ids[never], "fail", e);
                }
                throw e;
            }
        }
    }

    private synchronized void delivered(long id, RecordMetadata metadata, Exception e) {
        if (e != null) {
            failed(id, Outcomes.ofSend(e), e);
            return;
        }
        if (gaveUp) {
            return;
        }
        if (--inFlight == 0) {
            notifyAll();
        }
        ledger.ok(id, metadata.partition(), metadata.offset());
        report.count("ok", 1);
        long now = System.nanoTime();
        longestAckGapS = Math.max(longestAckGapS, (now - lastAck) / 1e9);
        lastAck = now;
        report.put("longest_ack_gap_s", Math.round(longestAckGapS * 1000) / 1000.0);
    }

    private synchronized void failed(long id, String outcome, Exception e) {
        if (gaveUp) {
            return;
        }
        if (--inFlight == 0) {
            notifyAll();
        }
        String name = Outcomes.name(e);
        if (outcome.equals("info")) {
            ledger.info(id, name);
        } else {
            ledger.fail(id, name);
        }
        report.count(outcome, 1);
        report.error(name);
    }

    /**
     * Wait up to {@code timeoutS} for every send's outcome, writing the outcomes as they come (every 100 ms);
     * returns how many have none.
     */
    private synchronized int awaitDeliveries(double timeoutS) throws InterruptedException {
        long deadline = System.nanoTime() + (long) (timeoutS * 1e9);
        for (long left = deadline - System.nanoTime(); inFlight > 0 && left > 0; left = deadline - System.nanoTime()) {
            ledger.flush();
            wait(Math.min(left / 1_000_000 + 1, 100));
        }
        gaveUp = true;
        return inFlight;
    }
}
