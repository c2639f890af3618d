package dev.onceonly.spring.async;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.Task;
import java.time.Clock;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;

/**
 * The task queue of asynchronous operations: OnceOnly's own db-scheduler, on its own table, started with the
 * application, paused while it is stopped, and shut down (waiting for running operations up to
 * {@code onceonly.async.shutdown-wait}) when it closes. Not a {@link Scheduler} bean, so that an application's own
 * db-scheduler neither backs off for it nor is started twice.
 *
 * <p>A stopped context may be started again (Spring's test context cache does so), but a db-scheduler that was
 * stopped cannot: its executors are gone. So stopping only pauses it (it picks no further task; running ones go
 * on), and it is stopped for good once, when the bean is destroyed.
 */
public final class OperationQueue implements SmartLifecycle, DisposableBean {

    private final Scheduler scheduler;
    private final Task<OperationTask> task;
    private final Clock clock;
    private final boolean runsWorkers;
    private volatile boolean running;

    /** @param runsWorkers whether this instance runs operations ({@code onceonly.async.enabled}) or only queues them */
    public OperationQueue(Scheduler scheduler, Task<OperationTask> task, Clock clock, boolean runsWorkers) {
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
    public synchronized void start() {
        if (!runsWorkers) {
            return;
        }
        if (scheduler.getSchedulerState().isStarted()) {
            scheduler.resume();
        } else {
            scheduler.start();
        }
        running = true;
    }

    @Override
    public synchronized void stop() {
        if (running) {
            scheduler.pause();
            running = false;
        }
    }

    @Override
    public synchronized void destroy() {
        running = false;
        if (scheduler.getSchedulerState().isStarted()) {
            scheduler.stop();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
