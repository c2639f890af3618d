package dev.onceonly.spring.boot.metrics;

import dev.onceonly.IdempotencyScope;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.Completion;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.LeaseToken;
import dev.onceonly.spi.Release;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Supplier;

/** Times every store call as {@code onceonly.store.operations} tagged {@code operation} and {@code store}. */
final class TimedIdempotencyStore implements IdempotencyStore {

    private final IdempotencyStore delegate;
    private final Timer claim;
    private final Timer find;
    private final Timer renew;
    private final Timer complete;
    private final Timer release;
    private final Timer purge;
    private final Timer insertFinished;

    TimedIdempotencyStore(IdempotencyStore delegate, MeterRegistry registry) {
        this.delegate = delegate;
        String store = delegate.getClass().getSimpleName();
        this.claim = timer(registry, "claim", store);
        this.find = timer(registry, "find", store);
        this.renew = timer(registry, "renew", store);
        this.complete = timer(registry, "complete", store);
        this.release = timer(registry, "release", store);
        this.purge = timer(registry, "purge", store);
        this.insertFinished = timer(registry, "insert-finished", store);
    }

    private static Timer timer(MeterRegistry registry, String operation, String store) {
        return Timer.builder("onceonly.store.operations").description("Calls to the idempotency store")
                .tag("operation", operation).tag("store", store).register(registry);
    }

    private static <T> T time(Timer timer, Supplier<T> call) {
        return timer.record(call);
    }

    @Override
    public ClaimResult claim(ClaimRequest request, Instant now) {
        return time(claim, () -> delegate.claim(request, now));
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyScope scope) {
        return time(find, () -> delegate.find(scope));
    }

    @Override
    public boolean complete(IdempotencyScope scope, LeaseToken token, Completion completion, Instant now) {
        return time(complete, () -> delegate.complete(scope, token, completion, now));
    }

    @Override
    public boolean renew(IdempotencyScope scope, LeaseToken token, Instant leaseExpiresAt, Instant now) {
        return time(renew, () -> delegate.renew(scope, token, leaseExpiresAt, now));
    }

    @Override
    public boolean release(IdempotencyScope scope, LeaseToken token, Release release, Instant now) {
        return time(this.release, () -> delegate.release(scope, token, release, now));
    }

    @Override
    public boolean insertsFinished() {
        return delegate.insertsFinished();
    }

    @Override
    public Insertion insertFinished(ClaimRequest request, Completion completion, Instant now) {
        return time(insertFinished, () -> delegate.insertFinished(request, completion, now));
    }

    @Override
    public int purgeExpired(Instant now, int limit) {
        return time(purge, () -> delegate.purgeExpired(now, limit));
    }

    @Override
    public String toString() {
        return "Timed" + delegate;
    }
}
