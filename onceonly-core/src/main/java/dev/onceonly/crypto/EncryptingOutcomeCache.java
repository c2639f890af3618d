package dev.onceonly.crypto;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.spi.CachedOutcome;
import dev.onceonly.spi.OutcomeCache;
import java.security.SecureRandom;
import java.util.Objects;

/**
 * An outcome cache whose outcomes reach the cache beneath encrypted, as {@link EncryptingIdempotencyStore} stores
 * them: a service that encrypts its stored responses keeps them encrypted in Redis too. Markers carry no response
 * and pass through. An outcome that does not decrypt (a key retired, another service's value) is no answer: the
 * engine then asks the store. Thread-safe.
 */
public final class EncryptingOutcomeCache implements OutcomeCache {

    private final OutcomeCache delegate;
    private final EncryptionKeys keys;
    private final SecureRandom random = new SecureRandom();

    public EncryptingOutcomeCache(OutcomeCache delegate, EncryptionKeys keys) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.keys = Objects.requireNonNull(keys, "keys");
    }

    @Override
    public Entry enter(IdempotencyScope scope, Fingerprint fingerprint, boolean writesOnce) {
        Entry entry = delegate.enter(scope, fingerprint, writesOnce);
        if (!(entry instanceof Finished(CachedOutcome outcome))) {
            return entry;
        }
        if (!outcome.response().isSealed()) {
            return Unknown.INSTANCE;
        }
        try {
            return new Finished(new CachedOutcome(outcome.fingerprint(),
                    ResponseEnvelope.open(outcome.response(), scope, keys), outcome.expiresAt()));
        } catch (RuntimeException unreadable) {
            return Unknown.INSTANCE;
        }
    }

    @Override
    public void remember(IdempotencyScope scope, CachedOutcome outcome) {
        delegate.remember(scope, new CachedOutcome(outcome.fingerprint(), ResponseEnvelope.seal(outcome.response(),
                scope, keys.activeKeyId(), keys.activeKey(), random), outcome.expiresAt()));
    }

    @Override
    public void leave(IdempotencyScope scope, Marker marker) {
        delegate.leave(scope, marker);
    }

    @Override
    public boolean forget(IdempotencyScope scope) {
        return delegate.forget(scope);
    }
}
