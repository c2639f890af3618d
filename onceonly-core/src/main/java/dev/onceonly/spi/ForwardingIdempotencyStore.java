package dev.onceonly.spi;

import dev.onceonly.IdempotencyScope;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A store that hands every call to another: the base of decorators, which override only what they change (and
 * keep working unchanged when the SPI grows a method, which is added here once). A decorator must keep every
 * promise of {@link IdempotencyStore}, in particular that a finished record never changes before it expires.
 */
public abstract class ForwardingIdempotencyStore implements IdempotencyStore {

    private final IdempotencyStore delegate;

    protected ForwardingIdempotencyStore(IdempotencyStore delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The store this one hands its calls to. */
    protected final IdempotencyStore delegate() {
        return delegate;
    }

    @Override
    public ClaimResult claim(ClaimRequest request, Instant now) {
        return delegate.claim(request, now);
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyScope scope) {
        return delegate.find(scope);
    }

    @Override
    public boolean complete(IdempotencyScope scope, LeaseToken token, Completion completion, Instant now) {
        return delegate.complete(scope, token, completion, now);
    }

    @Override
    public boolean renew(IdempotencyScope scope, LeaseToken token, Instant leaseExpiresAt, Instant now) {
        return delegate.renew(scope, token, leaseExpiresAt, now);
    }

    @Override
    public boolean release(IdempotencyScope scope, LeaseToken token, Release release, Instant now) {
        return delegate.release(scope, token, release, now);
    }

    /**
     * {@code false}, whatever the delegate can: a decorator that changes how outcomes are stored ({@link #complete})
     * must change {@link #insertFinished} the same way before it says {@code true}.
     */
    @Override
    public boolean insertsFinished() {
        return false;
    }

    /** Forwarded only by a decorator that {@linkplain #insertsFinished() says it can}. */
    @Override
    public Insertion insertFinished(ClaimRequest request, Completion completion, Instant now) {
        if (!insertsFinished()) {
            return IdempotencyStore.super.insertFinished(request, completion, now);
        }
        return delegate.insertFinished(request, completion, now);
    }

    @Override
    public int purgeExpired(Instant now, int limit) {
        return delegate.purgeExpired(now, limit);
    }

    @Override
    public boolean evict(IdempotencyScope scope, Instant now) {
        return delegate.evict(scope, now);
    }

    /**
     * Forwarded as stored, responses included (encrypted ones stay encrypted): for administrators, who see records
     * without their responses.
     */
    @Override
    public List<IdempotencyRecord> recent(String owner, String operation, int limit) {
        return delegate.recent(owner, operation, limit);
    }

    @Override
    public RecordStatistics statistics(Instant now) {
        return delegate.statistics(now);
    }

    @Override
    public boolean keepsAudit() {
        return delegate.keepsAudit();
    }
}
