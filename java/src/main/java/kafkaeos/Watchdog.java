package kafkaeos;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Around a client call given a timeout: give up on the whole app when the call outlives it by
 * {@link #GRACE_S}, as harness.workloads.transactions.bounded does. The app then prints its report so far
 * with {@code stuck: {call, timeout_s, waited_s}} and halts with {@link #STUCK_EXIT} at once: the blocked
 * thread cannot be interrupted safely, and an open transaction is left to the coordinator's timeout, as
 * after a crash.
 */
final class Watchdog {
    static final int STUCK_EXIT = 4;
    static final double GRACE_S = 15.0;
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "watchdog");
        t.setDaemon(true);
        return t;
    });
    private static volatile Supplier<Map<String, Object>> progress = LinkedHashMap::new;
    private final ScheduledFuture<?> alarm;

    /** What the app has done so far: the report printed if it has to give up. */
    static void reportWith(Supplier<Map<String, Object>> report) {
        progress = report;
    }

    /** Run {@code call}, named {@code name}, which the client bounds by {@code timeoutS} itself. */
    static void bounded(String name, double timeoutS, Runnable call) {
        Watchdog watchdog = new Watchdog(name, timeoutS);
        try {
            call.run();
        } finally {
            watchdog.alarm.cancel(false);
        }
    }

    private Watchdog(String call, double timeoutS) {
        long started = System.nanoTime();
        alarm = TIMER.schedule(() -> {
            Map<String, Object> report = progress.get();
            double waited = Math.round((System.nanoTime() - started) / 1e8) / 10.0;
            Map<String, Object> stuck = new LinkedHashMap<>();
            stuck.put("call", call);
            stuck.put("timeout_s", timeoutS);
            stuck.put("waited_s", waited);
            report.put("stuck", stuck);
            Report.print(report);
            Runtime.getRuntime().halt(STUCK_EXIT);
        }, (long) ((timeoutS + GRACE_S) * 1000), TimeUnit.MILLISECONDS);
    }
}
