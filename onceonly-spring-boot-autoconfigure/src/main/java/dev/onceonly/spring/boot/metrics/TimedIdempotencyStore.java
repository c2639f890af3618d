package dev.onceonly.spring.boot.metrics;

import dev.onceonly.IdempotencyScope;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.Completion;
import dev.onceonly.spi.ForwardingIdempotencyStore;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.LeaseToken;
import dev.onceonly.spi.Release;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Times every store call as {@code onceonly.store.operations} tagged {@code operation} and {@code store}; counts
 * claims by what they found as {@code onceonly.store.claims} ({@code new}, {@code taken_over}: an attempt that continued
 * a record that existed, a retry of a record that failed retryably or whose lease ran out, or a worker's attempt at
 * an asynchronous operation; {@code duplicate}, {@code locked}), and attempts the store refused because
 * they had lost their record (fenced) as {@code onceonly.store.fenced} by {@code operation}.
 */
final class TimedIdempotencyStore extends ForwardingIdempotencyStore {

    private final Timer claim;
    private final Timer find;
    private final Timer renew;
    private final Timer complete;
    private final Timer release;
    private final Timer purge;
    private final Timer insertFinished;
    private final Counter claimedNew;
    private final Counter takenOver;
    private final Counter duplicates;
    private final Counter locked;
    private final Counter fencedRenewals;
    private final Counter fencedCompletions;
    private final Counter fencedReleases;

    TimedIdempotencyStore(IdempotencyStore delegate, MeterRegistry registry) {
        super(delegate);
        String store = delegate.getClass().getSimpleName();
        this.claim = timer(registry, "claim", store);
        this.find = timer(registry, "find", store);
        this.renew = timer(registry, "renew", store);
        this.complete = timer(registry, "complete", store);
        this.release = timer(registry, "release", store);
        this.purge = timer(registry, "purge", store);
        this.insertFinished = timer(registry, "insert-finished", store);
        this.claimedNew = claims(registry, "new", store);
        this.takenOver = claims(registry, "taken_over", store);
        this.duplicates = claims(registry, "duplicate", store);
        this.locked = claims(registry, "locked", store);
        this.fencedRenewals = fenced(registry, "renew", store);
        this.fencedCompletions = fenced(registry, "complete", store);
        this.fencedReleases = fenced(registry, "release", store);
    }

    private static Timer timer(MeterRegistry registry, String operation, String store) {
        return Timer.builder("onceonly.store.operations").description("Calls to the idempotency store")
                .tag("operation", operation).tag("store", store).register(registry);
    }

    private static Counter claims(MeterRegistry registry, String result, String store) {
        return Counter.builder("onceonly.store.claims").description("Claims, by what they found")
                .tag("result", result).tag("store", store).register(registry);
    }

    private static Counter fenced(MeterRegistry registry, String operation, String store) {
        return Counter.builder("onceonly.store.fenced")
                .description("Attempts refused by the store because a later attempt or an eviction took their record")
                .tag("operation", operation).tag("store", store).register(registry);
    }

    private static <T> T time(Timer timer, Supplier<T> call) {
        return timer.record(call);
    }

    private static boolean counted(boolean accepted, Counter refusals) {
        if (!accepted) {
            refusals.increment();
        }
        return accepted;
    }

    @Override
    public ClaimResult claim(ClaimRequest request, Instant now) {
        ClaimResult result = time(claim, () -> delegate().claim(request, now));
        switch (result) {
            // A claim that kept the record's creation time continued a record that existed and had not expired.
            case ClaimResult.Claimed claimed when claimed.token().createdAt()
                    .isBefore(now.truncatedTo(ChronoUnit.MICROS)) -> takenOver.increment();
            case ClaimResult.Claimed claimed -> claimedNew.increment();
            case ClaimResult.Duplicate duplicate -> duplicates.increment();
            case ClaimResult.Locked ignored -> locked.increment();
        }
        return result;
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyScope scope) {
        return time(find, () -> delegate().find(scope));
    }

    @Override
    public boolean complete(IdempotencyScope scope, LeaseToken token, Completion completion, Instant now) {
        return counted(time(complete, () -> delegate().complete(scope, token, completion, now)), fencedCompletions);
    }

    @Override
    public boolean renew(IdempotencyScope scope, LeaseToken token, Instant leaseExpiresAt, Instant now) {
        return counted(time(renew, () -> delegate().renew(scope, token, leaseExpiresAt, now)), fencedRenewals);
    }

    @Override
    public boolean release(IdempotencyScope scope, LeaseToken token, Release release, Instant now) {
        return counted(time(this.release, () -> delegate().release(scope, token, release, now)), fencedReleases);
    }

    /** Times what the store beneath can do: this decorator changes no stored outcome. */
    @Override
    public boolean insertsFinished() {
        return delegate().insertsFinished();
    }

    @Override
    public Insertion insertFinished(ClaimRequest request, Completion completion, Instant now) {
        return time(insertFinished, () -> delegate().insertFinished(request, completion, now));
    }

    @Override
    public int purgeExpired(Instant now, int limit) {
        return time(purge, () -> delegate().purgeExpired(now, limit));
    }

    @Override
    public String toString() {
        return "Timed" + delegate();
    }
}
