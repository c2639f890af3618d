package dev.onceonly.redis;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.spi.CachedOutcome;
import dev.onceonly.spi.OutcomeCache;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A Redis outcome cache whose server fails in the middle of a test, at the moment that hurts most, and is back three
 * calls later: just before the first outcome reaches it (at the outcome's first replay from the store: the attempt
 * has committed; its outcome never gets to Redis, its marker stays), or at the first call after an attempt took its
 * marker (the marker, the only trace of that attempt in Redis, is lost). Killed, it comes back empty; frozen
 * (SIGSTOP: connections stay open, nothing answers, each call waits out the client's timeout), it comes back as it
 * was. The second moment can meet a write-once attempt still running, whose duplicates then run too (what
 * write-once trades, documented): use it where attempts claim first.
 */
public final class MidTestOutage implements OutcomeCache {

    /** How the server fails, and comes back. */
    public enum Outage {
        KILLED {
            @Override
            void begin(RedisServerProcess server) {
                server.kill();
            }

            @Override
            void end(RedisServerProcess server) {
                server.restart();
            }
        },
        FROZEN {
            @Override
            void begin(RedisServerProcess server) {
                server.freeze();
            }

            @Override
            void end(RedisServerProcess server) {
                server.thaw();
            }
        };

        abstract void begin(RedisServerProcess server);

        abstract void end(RedisServerProcess server);
    }

    /** When the server fails. */
    public enum Moment {
        /** Just before the first outcome reaches it. */
        FIRST_OUTCOME,
        /** At the first call after an attempt took its marker. */
        AFTER_FIRST_MARKER
    }

    private static final int CALLS_WHILE_DOWN = 3;

    private final RedisServerProcess server;
    private final RedisOutcomeCache delegate;
    private final Outage outage;
    private final Moment moment;
    /** -1 before the outage, then the calls made since, up to its end. */
    private final AtomicInteger callsSinceKill = new AtomicInteger(-1);
    /** Whether an attempt took a marker since the last {@link #rearm}. */
    private volatile boolean marked;

    public MidTestOutage(RedisServerProcess server, RedisOutcomeCache delegate, Outage outage, Moment moment) {
        this.server = server;
        this.delegate = delegate;
        this.outage = outage;
        this.moment = moment;
    }

    @Override
    public Entry enter(IdempotencyScope scope, Fingerprint fingerprint, boolean writesOnce) {
        beforeCall(moment == Moment.AFTER_FIRST_MARKER && marked);
        Entry entry = delegate.enter(scope, fingerprint, writesOnce);
        if (entry instanceof Entered) {
            marked = true;
        }
        return entry;
    }

    @Override
    public void remember(IdempotencyScope scope, CachedOutcome outcome) {
        beforeCall(moment == Moment.FIRST_OUTCOME || marked);
        delegate.remember(scope, outcome);
    }

    @Override
    public void leave(IdempotencyScope scope, Marker marker) {
        beforeCall(moment == Moment.AFTER_FIRST_MARKER && marked);
        delegate.leave(scope, marker);
    }

    @Override
    public boolean forget(IdempotencyScope scope) {
        return delegate.forget(scope);
    }

    /** Ends an outage still going on, and fails the server again at its moment again: for the next test. */
    public void rearm() {
        outage.end(server);
        marked = false;
        callsSinceKill.set(-1);
        // Redis asked again (its breaker closed), so that the next test's attempts take markers.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!(delegate.ping() && delegate.breakerState() == CircuitBreaker.State.CLOSED)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Redis did not answer again within 10 s");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    /** Whether the server failed. */
    public boolean struck() {
        return callsSinceKill.get() >= 0;
    }

    /** Fails the server if {@code now} and it has not failed yet; else counts a call towards its return. */
    private void beforeCall(boolean now) {
        if (now && callsSinceKill.compareAndSet(-1, 0)) {
            outage.begin(server);
        } else {
            afterCall();
        }
    }

    private void afterCall() {
        int since = callsSinceKill.get();
        if (since >= 0 && since < CALLS_WHILE_DOWN && callsSinceKill.compareAndSet(since, since + 1)
                && since + 1 == CALLS_WHILE_DOWN) {
            outage.end(server);
        }
    }
}
