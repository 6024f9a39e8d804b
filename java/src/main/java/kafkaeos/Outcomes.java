package kafkaeos;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.protocol.Errors;

/** What a client error means for the ledger and the app: its name, and whether the outcome is known. */
final class Outcomes {
    private Outcomes() {
    }

    /**
     * The error a wrapper stands for: the client wraps earlier errors in a bare {@link KafkaException}
     * ("in an error state", "failed to construct"), whose name would say nothing.
     */
    static Throwable cause(Throwable e) {
        while (e.getClass() == KafkaException.class && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    /** The Kafka protocol error name (as librdkafka reports it too), else the exception's class name. */
    static String name(Throwable e) {
        Throwable cause = cause(e);
        Errors error = Errors.forException(cause);
        if (error == Errors.UNKNOWN_SERVER_ERROR && !(cause instanceof UnknownServerException)) {
            return cause.getClass().getSimpleName();
        }
        return error.name();
    }

    /** The message of the error a wrapper stands for, with the wrapper's when they differ. */
    static String message(Throwable e) {
        Throwable cause = cause(e);
        return cause == e ? String.valueOf(e.getMessage()) : e.getMessage() + ": " + cause.getMessage();
    }

    /**
     * A send's outcome: {@code info} when the broker may have written the record (a retriable error or a
     * timeout may follow an attempt it did write), {@code fail} when it surely did not.
     */
    static String ofSend(Exception e) {
        return retriable(e) ? "info" : "fail";
    }

    /**
     * Retriable, timeouts included: the call's outcome is still open. Judged on the exception itself: a
     * wrapper saying "in an error state" is no longer retriable, whatever error put the producer there.
     */
    static boolean retriable(Throwable e) {
        return e instanceof RetriableException;
    }

    /**
     * The producer may not go on: fenced by a newer one, or an error Kafka's client documents as fatal
     * (thrown as such; a fatal error behind a wrapper shows when aborting fails too). Not
     * InvalidProducerEpochException: a Produce with an old epoch (the coordinator aborted a transaction that
     * outlived its timeout, or a newer producer fenced this one) is abortable since KIP-588, and the abort
     * tells the two apart: it bumps the epoch and the app goes on, or it fails as fenced.
     */
    static boolean fatal(Throwable e) {
        return e instanceof ProducerFencedException
            || e instanceof OutOfOrderSequenceException
            || e instanceof AuthorizationException
            || e instanceof UnsupportedVersionException;
    }
}
