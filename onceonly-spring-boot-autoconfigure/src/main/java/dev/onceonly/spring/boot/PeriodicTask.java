package dev.onceonly.spring.boot;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Runs a task of OnceOnly's every {@code interval} while the application runs, on one daemon thread of its own (never
 * the application's scheduler, whose pool its own jobs may fill). Runs never overlap: the next starts
 * {@code interval} after the last ended. The task handles its own failures; whatever it lets through, an
 * {@code Error} too, is logged and the task runs again at its next time, since a scheduled task that throws is never
 * run again (issue 39: one {@code Error} stopped the cleanup for good, and the tables grew).
 */
public final class PeriodicTask implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(PeriodicTask.class);

    private final String threadName;
    private final Duration initialDelay;
    private final Duration interval;
    private final Runnable task;
    private @Nullable ScheduledExecutorService scheduler;

    public PeriodicTask(String threadName, Duration initialDelay, Duration interval, Runnable task) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("interval must be positive, but is " + interval);
        }
        this.threadName = threadName;
        this.initialDelay = initialDelay;
        this.interval = interval;
        this.task = task;
    }

    @Override
    public synchronized void start() {
        if (scheduler == null) {
            scheduler = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name(threadName)
                    .factory());
            scheduler.scheduleWithFixedDelay(this::runOnce, initialDelay.toMillis(), interval.toMillis(),
                    TimeUnit.MILLISECONDS);
        }
    }

    private void runOnce() {
        try {
            task.run();
        } catch (Throwable e) {
            log.warn("{} failed; it runs again in {}", threadName, interval, e);
        }
    }

    @Override
    public synchronized void stop() {
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler = null;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return scheduler != null;
    }
}
