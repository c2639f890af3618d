package dev.onceonly.spring.boot;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * Runs a task of OnceOnly's every {@code interval} while the application runs, on one daemon thread of its own (never
 * the application's scheduler, whose pool its own jobs may fill). Runs never overlap: the next starts
 * {@code interval} after the last ended. The task handles its own failures.
 */
public final class PeriodicTask implements SmartLifecycle {

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
            scheduler.scheduleWithFixedDelay(task, initialDelay.toMillis(), interval.toMillis(),
                    TimeUnit.MILLISECONDS);
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
