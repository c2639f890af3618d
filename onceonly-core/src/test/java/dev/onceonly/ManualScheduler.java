package dev.onceonly;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler whose periodic tasks run only when the test calls {@link #tick()}, on the test's thread, so that
 * heartbeats follow the test's clock instead of real time.
 */
final class ManualScheduler extends ScheduledThreadPoolExecutor {

    private record Periodic(Runnable task, ScheduledFuture<?> future) {
    }

    private final List<Periodic> periodic = new CopyOnWriteArrayList<>();

    ManualScheduler() {
        super(1);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, long initialDelay, long period, TimeUnit unit) {
        // A real future that never fires on its own, so that cancelling it works as the engine expects.
        ScheduledFuture<?> future = super.schedule(() -> { }, 1, TimeUnit.DAYS);
        periodic.add(new Periodic(task, future));
        return future;
    }

    /** Runs every periodic task not cancelled yet, once. */
    void tick() {
        for (Periodic each : periodic) {
            if (!each.future().isCancelled()) {
                each.task().run();
            }
        }
    }

    /** How many periodic tasks were started and are not cancelled. */
    long running() {
        return periodic.stream().filter(each -> !each.future().isCancelled()).count();
    }
}
