package dev.onceonly.redis;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.spi.CachedOutcome;
import dev.onceonly.spi.OutcomeCache;

/**
 * An outcome cache whose Redis answers {@link #enter} and then nothing: the outcome is not remembered and the marker
 * not left, as when Redis fails between an attempt's commit and its remembering (the cache swallows such failures).
 */
final class SilentAfterEnter implements OutcomeCache {

    private final OutcomeCache delegate;

    SilentAfterEnter(OutcomeCache delegate) {
        this.delegate = delegate;
    }

    @Override
    public Entry enter(IdempotencyScope scope, Fingerprint fingerprint, boolean writesOnce) {
        return delegate.enter(scope, fingerprint, writesOnce);
    }

    @Override
    public void remember(IdempotencyScope scope, CachedOutcome outcome) {
        // unanswered
    }

    @Override
    public void leave(IdempotencyScope scope, Marker marker) {
        // unanswered
    }
}
