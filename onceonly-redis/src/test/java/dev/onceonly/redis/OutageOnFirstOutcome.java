package dev.onceonly.redis;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.spi.CachedOutcome;
import dev.onceonly.spi.OutcomeCache;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Redis outcome cache whose server fails just before the first outcome reaches it (the attempt has committed; its
 * outcome never gets to Redis), and is back three calls later: a Redis outage in the middle of a test, at the
 * moment that hurts most. Killed, it comes back empty; frozen (SIGSTOP: connections stay open, nothing answers,
 * each call waits out the client's timeout), it comes back as it was.
 */
public final class OutageOnFirstOutcome implements OutcomeCache {

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

    private static final int CALLS_WHILE_DOWN = 3;

    private final RedisServerProcess server;
    private final OutcomeCache delegate;
    private final Outage outage;
    /** -1 before the outage, then the calls made since, up to its end. */
    private final AtomicInteger callsSinceKill = new AtomicInteger(-1);

    public OutageOnFirstOutcome(RedisServerProcess server, OutcomeCache delegate, Outage outage) {
        this.server = server;
        this.delegate = delegate;
        this.outage = outage;
    }

    @Override
    public Entry enter(IdempotencyScope scope, Fingerprint fingerprint) {
        afterCall();
        return delegate.enter(scope, fingerprint);
    }

    @Override
    public void remember(IdempotencyScope scope, CachedOutcome outcome) {
        if (callsSinceKill.compareAndSet(-1, 0)) {
            outage.begin(server);
        } else {
            afterCall();
        }
        delegate.remember(scope, outcome);
    }

    @Override
    public void leave(IdempotencyScope scope, Marker marker) {
        afterCall();
        delegate.leave(scope, marker);
    }

    @Override
    public boolean forget(IdempotencyScope scope) {
        return delegate.forget(scope);
    }

    /** Ends an outage still going on, and fails the server again at the next first outcome: for the next test. */
    public void rearm() {
        outage.end(server);
        callsSinceKill.set(-1);
    }

    /** Whether the server failed. */
    public boolean struck() {
        return callsSinceKill.get() >= 0;
    }

    private void afterCall() {
        int since = callsSinceKill.get();
        if (since >= 0 && since < CALLS_WHILE_DOWN && callsSinceKill.compareAndSet(since, since + 1)
                && since + 1 == CALLS_WHILE_DOWN) {
            outage.end(server);
        }
    }
}
