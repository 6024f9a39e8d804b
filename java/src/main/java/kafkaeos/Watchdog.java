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
 * after a crash. Time the process spent stopped does not count: a paused app is not a stuck client.
 */
final class Watchdog {
    static final int STUCK_EXIT = 4;
    static final double GRACE_S = 15.0;
    // How often the watchdog looks, and a gap between two looks that means the process was stopped.
    private static final long TICK_MS = 500;
    private static final long FROZEN_GAP_NS = 3_000_000_000L;
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
        long[] allowedNs = {(long) ((timeoutS + GRACE_S) * 1e9)};
        long[] lastNs = {started};
        alarm = TIMER.scheduleWithFixedDelay(() -> {
            long now = System.nanoTime();
            if (now - lastNs[0] > FROZEN_GAP_NS) {
                // The whole process was stopped (SIGSTOP) meanwhile: that time was not the call's.
                allowedNs[0] += now - lastNs[0];
            }
            lastNs[0] = now;
            if (now - started <= allowedNs[0]) {
                return;
            }
            Map<String, Object> report = progress.get();
            double waited = Math.round((now - started) / 1e8) / 10.0;
            Map<String, Object> stuck = new LinkedHashMap<>();
            stuck.put("call", call);
            stuck.put("timeout_s", timeoutS);
            stuck.put("waited_s", waited);
            report.put("stuck", stuck);
            Report.print(report);
            Runtime.getRuntime().halt(STUCK_EXIT);
        }, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
    }
}
