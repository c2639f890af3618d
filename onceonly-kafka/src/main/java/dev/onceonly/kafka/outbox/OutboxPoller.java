package dev.onceonly.kafka.outbox;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Runs {@link OutboxRelay#publishPending()} every {@code pollInterval} on one daemon thread of its own, from
 * {@link #start()} to {@link #stop()}. After a failed run it waits twice as long as before, up to
 * {@code maxBackoff}, and back to {@code pollInterval} after a run that succeeded. A failure is logged by its type
 * and SQLState only. {@link #stop()} interrupts a waiting acknowledgement (the round rolls back) and returns once
 * the thread ended.
 */
public final class OutboxPoller implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(OutboxPoller.class);
    /** How long {@link #stop()} waits for a round to end. */
    private static final Duration STOP_WAIT = Duration.ofSeconds(30);

    private final OutboxRelay relay;
    private final Duration pollInterval;
    private final Duration maxBackoff;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition stopping = lock.newCondition();
    private @Nullable Thread thread;

    /**
     * @param pollInterval the pause between runs (500 ms is a good default)
     * @param maxBackoff the longest pause after consecutive failures, at least {@code pollInterval}
     */
    public OutboxPoller(OutboxRelay relay, Duration pollInterval, Duration maxBackoff) {
        if (pollInterval.isNegative() || pollInterval.isZero() || maxBackoff.compareTo(pollInterval) < 0) {
            throw new IllegalArgumentException("pollInterval must be positive and maxBackoff at least pollInterval");
        }
        this.relay = Objects.requireNonNull(relay, "relay");
        this.pollInterval = pollInterval;
        this.maxBackoff = maxBackoff;
    }

    @Override
    public void start() {
        lock.lock();
        try {
            if (thread == null) {
                thread = Thread.ofPlatform().daemon().name("onceonly-outbox-" + relay.table()).start(this::run);
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void stop() {
        Thread running;
        lock.lock();
        try {
            running = thread;
            thread = null;
            stopping.signalAll();
        } finally {
            lock.unlock();
        }
        if (running != null) {
            running.interrupt();
            try {
                // A round stuck in a socket read does not see the interrupt; shutdown does not wait for it forever.
                if (!running.join(STOP_WAIT)) {
                    log.warn("The relay of outbox {} did not stop within {}; leaving it to end", relay.table(),
                            STOP_WAIT);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public boolean isRunning() {
        lock.lock();
        try {
            return thread != null;
        } finally {
            lock.unlock();
        }
    }

    private void run() {
        Duration pause = pollInterval;
        while (pauseFor(pause)) {
            try {
                relay.publishPending();
                pause = pollInterval;
            } catch (VirtualMachineError fatal) {
                log.error("The relay of outbox {} stops ({})", relay.table(), fatal.getClass().getSimpleName());
                throw fatal;
            } catch (Exception | Error e) {
                // Errors too (a driver's assertion on a dead session): a poller that died would look alive.
                pause = pause.multipliedBy(2).compareTo(maxBackoff) > 0 ? maxBackoff : pause.multipliedBy(2);
                log.warn("{}; trying again in {}", describe(e), pause);
            }
        }
    }

    /** Waits {@code pause} unless stopped first; false once stopped. */
    private boolean pauseFor(Duration pause) {
        lock.lock();
        try {
            long nanos = pause.toNanos();
            while (thread == Thread.currentThread() && nanos > 0) {
                nanos = stopping.awaitNanos(nanos);
            }
            return thread == Thread.currentThread();
        } catch (InterruptedException e) {
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** The relay's messages are safe to log; anything else is named by its type. */
    private String describe(Throwable e) {
        return e instanceof OutboxRelayException ? String.valueOf(e.getMessage())
                : "Publishing outbox " + relay.table() + " failed (" + e.getClass().getSimpleName() + ")";
    }
}
