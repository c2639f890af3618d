package dev.onceonly.memory;

import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.Completion;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.LeaseToken;
import dev.onceonly.spi.RecordState;
import dev.onceonly.spi.RecordStatistics;
import dev.onceonly.spi.Release;
import java.time.Instant;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

/**
 * An {@link IdempotencyStore} in this process's memory, for tests and single-process use. Records do not
 * survive a restart and are not shared between processes. Every method is atomic per scope (a
 * {@link ConcurrentHashMap} compute); it never blocks on another attempt, so it never answers
 * {@link ClaimResult.Locked}. It cannot join a transaction, so it serves the engine's leased mode only.
 * Thread-safe.
 */
public final class InMemoryIdempotencyStore implements IdempotencyStore {

    private final Map<IdempotencyScope, IdempotencyRecord> records = new ConcurrentHashMap<>();

    @Override
    public ClaimResult claim(ClaimRequest request, Instant now) {
        if (request.transactional()) {
            throw IdempotencyConfigurationException.of("transactions", "the in-memory store cannot join a "
                    + "transaction; use leased mode (no TransactionRunner) or a JDBC store");
        }
        AtomicReference<ClaimResult> result = new AtomicReference<>();
        records.compute(request.scope(), (scope, existing) -> {
            if (existing != null && !request.mayClaim(existing, now)) {
                result.set(new ClaimResult.Duplicate(existing));
                return existing;
            }
            boolean fresh = existing == null || existing.isExpired(now);
            int attempt = fresh ? 1 : existing.attempt() + 1;
            Instant createdAt = fresh ? now : existing.createdAt();
            int failures = fresh ? 0 : existing.failures();
            result.set(new ClaimResult.Claimed(new LeaseToken(attempt, createdAt), failures));
            return new IdempotencyRecord(scope, request.fingerprint(), RecordState.PROCESSING, attempt, failures,
                    request.leaseExpiresAt(), null, null, createdAt, now, request.expiresAt());
        });
        return result.get();
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyScope scope) {
        return Optional.ofNullable(records.get(scope));
    }

    @Override
    public boolean complete(IdempotencyScope scope, LeaseToken token, Completion completion, Instant now) {
        return transition(scope, token, existing -> new IdempotencyRecord(scope, existing.fingerprint(),
                completion.state(), existing.attempt(), existing.failures(), null, null, completion.response(),
                existing.createdAt(), now, completion.expiresAt()));
    }

    @Override
    public boolean renew(IdempotencyScope scope, LeaseToken token, Instant leaseExpiresAt, Instant now) {
        return transition(scope, token, existing -> new IdempotencyRecord(scope, existing.fingerprint(),
                RecordState.PROCESSING, existing.attempt(), existing.failures(), leaseExpiresAt, null, null,
                existing.createdAt(), now, existing.expiresAt().isBefore(leaseExpiresAt) ? leaseExpiresAt
                        : existing.expiresAt()));
    }

    @Override
    public boolean release(IdempotencyScope scope, LeaseToken token, Release release, Instant now) {
        return transition(scope, token, existing -> new IdempotencyRecord(scope, existing.fingerprint(),
                RecordState.FAILED_RETRYABLE, existing.attempt(), existing.failures() + 1, null,
                release.nextAttemptAt(), null, existing.createdAt(), now, release.expiresAt()));
    }

    private boolean transition(IdempotencyScope scope, LeaseToken token,
            UnaryOperator<IdempotencyRecord> change) {
        AtomicReference<Boolean> changed = new AtomicReference<>(false);
        records.computeIfPresent(scope, (ignored, existing) -> {
            if (existing.state() != RecordState.PROCESSING || existing.attempt() != token.attempt()
                    || !existing.createdAt().equals(token.createdAt())) {
                return existing;
            }
            changed.set(true);
            return change.apply(existing);
        });
        return changed.get();
    }

    @Override
    public int purgeExpired(Instant now, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be positive, but is " + limit);
        }
        int purged = 0;
        for (Iterator<Map.Entry<IdempotencyScope, IdempotencyRecord>> it = records.entrySet().iterator();
                it.hasNext() && purged < limit; ) {
            Map.Entry<IdempotencyScope, IdempotencyRecord> entry = it.next();
            if (entry.getValue().isExpired(now) && records.remove(entry.getKey(), entry.getValue())) {
                purged++;
            }
        }
        return purged;
    }

    @Override
    public boolean evict(IdempotencyScope scope, Instant now) {
        return records.remove(scope) != null;
    }

    @Override
    public List<IdempotencyRecord> recent(String owner, String operation, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be positive, but is " + limit);
        }
        return records.values().stream()
                .filter(record -> record.scope().owner().equals(owner) && record.scope().operation().equals(operation))
                .sorted(Comparator.comparing(IdempotencyRecord::createdAt).reversed())
                .limit(limit)
                .toList();
    }

    @Override
    public RecordStatistics statistics(Instant now) {
        Map<RecordState, Long> byState = new EnumMap<>(RecordState.class);
        Instant oldestProcessing = null;
        long expired = 0;
        long abandoned = 0;
        for (IdempotencyRecord record : records.values()) {
            byState.merge(record.state(), 1L, Long::sum);
            if (record.isExpired(now)) {
                expired++;
            }
            if (record.state() == RecordState.PROCESSING) {
                if (oldestProcessing == null || record.createdAt().isBefore(oldestProcessing)) {
                    oldestProcessing = record.createdAt();
                }
                // A queued asynchronous operation's lease ends as it is created: waiting, not abandoned.
                Instant leaseEnd = record.leaseExpiresAt();
                if (!record.isLeaseLive(now) && leaseEnd != null && leaseEnd.isAfter(record.createdAt())) {
                    abandoned++;
                }
            }
        }
        return new RecordStatistics(byState, oldestProcessing, expired, abandoned);
    }

    @Override
    public String toString() {
        return "InMemoryIdempotencyStore";
    }
}
