package kafkaeos;

import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.KafkaException;

/**
 * Ending a transaction the same way in every app, as harness.workloads.transactions does: the ledger gets
 * {@code txn-commit} before the commit is asked for and {@code txn-committed} after it returns, so a crash
 * in between leaves the outcome visibly unknown. Any other error aborts (and says which error), unless it
 * is fatal, still open (a timeout after every retry) or the abort fails too: then it is ledgered as
 * {@code txn-unknown} and thrown.
 */
final class Transactions {
    static final String COMMITTED = "committed";
    static final String ABORTED = "aborted";
    static final int ATTEMPTS = 5;
    private final Producer<byte[], byte[]> producer;
    private final Ledger ledger;
    private final long session;
    final double blockS;
    private final int attempts;

    /**
     * {@code blockS}: the producer's max.block.ms, the time a commit or abort may take before it times out;
     * {@code attempts}: how often a commit or abort is asked while its error is retriable.
     */
    Transactions(Producer<byte[], byte[]> producer, Ledger ledger, long session, double blockS, int attempts) {
        this.producer = producer;
        this.ledger = ledger;
        this.session = session;
        this.blockS = blockS;
        this.attempts = attempts;
    }

    static boolean abortsOnPurpose(int abortEvery, long txn) {
        return abortEvery > 0 && txn % abortEvery == abortEvery - 1;
    }

    /**
     * Run {@code work} (the transaction's sends, adding consumer offsets), then commit or abort {@code txn}.
     * The sends are inside: once one failed, the client refuses further calls until the abort.
     */
    String end(long txn, boolean abort, Runnable work) {
        boolean committing = false;
        try {
            work.run();
            if (abort) {
                // Written first, then aborted: an abort with records still queued would fail them
                // locally, and the log would never hold anything for the abort to hide.
                producer.flush();
                untilAnswered("abortTransaction", producer::abortTransaction);
                ledger.txn(ABORTED, session, txn, "on purpose");
                return ABORTED;
            }
            ledger.txn("commit", session, txn, null);
            committing = true;
            untilAnswered("commitTransaction", producer::commitTransaction);
            ledger.txn(COMMITTED, session, txn, null);
            return COMMITTED;
        } catch (KafkaException e) {
            KafkaException unknown = e;
            // A timeout before the commit (a send or sendOffsetsToTransaction outliving max.block.ms) is
            // abortable, as the client documents since KAFKA-18579: abort and redo the batch. During the
            // commit it leaves the outcome open, and untilAnswered has asked again already.
            if (!Outcomes.fatal(e) && (!Outcomes.retriable(e) || !committing)) {
                try {
                    untilAnswered("abortTransaction", producer::abortTransaction);
                    ledger.txn(ABORTED, session, txn, Outcomes.name(e));
                    return ABORTED;
                } catch (KafkaException abortFailed) {
                    unknown = abortFailed;
                }
            }
            ledger.txn("unknown", session, txn, Outcomes.name(unknown));
            throw unknown;
        }
    }

    /**
     * Commit or abort, asking again while the error is retriable (a timeout while the coordinator is
     * unreachable): the outcome is still open, and the client resumes waiting for the same end.
     */
    private void untilAnswered(String call, Runnable end) {
        for (int attempt = 1; ; attempt++) {
            try {
                Watchdog.bounded(call, blockS, end);
                return;
            } catch (KafkaException e) {
                if (!Outcomes.retriable(e) || attempt >= attempts) {
                    throw e;
                }
            }
        }
    }
}
