package dev.onceonly.spring.boot.async;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.Task;
import java.time.Clock;
import org.springframework.context.SmartLifecycle;

/**
 * The task queue of asynchronous operations: OnceOnly's own db-scheduler, on its own table, started and stopped
 * with the application (stopping waits for running operations up to {@code onceonly.async.shutdown-wait}). Not a
 * {@link Scheduler} bean, so that an application's own db-scheduler neither backs off for it nor is started twice.
 */
final class OperationQueue implements SmartLifecycle {

    private final Scheduler scheduler;
    private final Task<OperationTask> task;
    private final Clock clock;
    private final boolean runsWorkers;
    private volatile boolean running;

    /** @param runsWorkers whether this instance runs operations ({@code onceonly.async.enabled}) or only queues them */
    OperationQueue(Scheduler scheduler, Task<OperationTask> task, Clock clock, boolean runsWorkers) {
        this.scheduler = scheduler;
        this.task = task;
        this.clock = clock;
        this.runsWorkers = runsWorkers;
    }

    /** Queues the operation's task unless it is queued already, in the caller's transaction. */
    void enqueue(OperationTask queued) {
        scheduler.scheduleIfNotExists(task.instance(queued.instanceId(), queued), clock.instant());
    }

    /** Looks for due tasks now rather than at the next poll, on this instance. */
    void lookNow() {
        if (running) {
            scheduler.triggerCheckForDueExecutions();
        }
    }

    @Override
    public void start() {
        if (runsWorkers) {
            scheduler.start();
            running = true;
        }
    }

    @Override
    public void stop() {
        if (running) {
            scheduler.stop();
            running = false;
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
