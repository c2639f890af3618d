package dev.onceonly.redis;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.spi.CachedOutcome;
import dev.onceonly.spi.OutcomeCache;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Redis outcome cache whose server is killed just before the first outcome reaches it (the attempt has
 * committed; its outcome never gets to Redis), and started again, empty, three calls later: a Redis outage in the
 * middle of a test, at the moment that hurts most.
 */
public final class KilledOnFirstOutcome implements OutcomeCache {

    private static final int CALLS_WHILE_DOWN = 3;

    private final RedisServerProcess server;
    private final OutcomeCache delegate;
    /** -1 before the kill, then the calls made since, up to the restart. */
    private final AtomicInteger callsSinceKill = new AtomicInteger(-1);

    public KilledOnFirstOutcome(RedisServerProcess server, OutcomeCache delegate) {
        this.server = server;
        this.delegate = delegate;
    }

    @Override
    public Entry enter(IdempotencyScope scope, Fingerprint fingerprint) {
        afterCall();
        return delegate.enter(scope, fingerprint);
    }

    @Override
    public void remember(IdempotencyScope scope, CachedOutcome outcome) {
        if (callsSinceKill.compareAndSet(-1, 0)) {
            server.kill();
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

    /** Starts the server again, empty, and kills it again at the next first outcome: for the next test. */
    public void rearm() {
        server.restart();
        callsSinceKill.set(-1);
    }

    /** Whether the server was killed. */
    public boolean killed() {
        return callsSinceKill.get() >= 0;
    }

    private void afterCall() {
        int since = callsSinceKill.get();
        if (since >= 0 && since < CALLS_WHILE_DOWN && callsSinceKill.compareAndSet(since, since + 1)
                && since + 1 == CALLS_WHILE_DOWN) {
            server.restart();
        }
    }
}
