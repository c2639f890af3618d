package dev.onceonly;

import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.RecordState;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's asynchronous operations: a submission stores the record with no attempt running, together with
 * the worker's task; the worker's attempts are {@link LeasedAttempts}. Immutable and thread-safe.
 */
record AsynchronousAttempts(IdempotencyStore store, Clock clock, Records records, LeasedAttempts leased,
        Duration waitTimeout, Duration retryAfter) {

    /** The engine's category, which users configure. */
    private static final Logger log = LoggerFactory.getLogger(IdempotencyEngine.class);

    <T> Submission<T> submit(TransactionRunner runner, IdempotencyScope stored, Fingerprint fingerprint,
            OutcomeCodec<T> codec, Consumer<IdempotencyScope> enqueue) {
        return runner.inTransaction(() -> {
            Instant now = clock.instant();
            // A claim that may not take over: a duplicate of a live operation neither takes its queued record over
            // nor counts an attempt, and the claim alone decides every race, in one round trip.
            ClaimRequest request = records.queuedClaimRequest(stored, fingerprint, now, waitTimeout);
            return switch (store.claim(request, now)) {
                case ClaimResult.Claimed claimed -> {
                    enqueue.accept(stored);
                    log.debug("Accepted: operation={} key={}", stored.operation(), stored.key());
                    yield new Submission.Accepted<>(queuedRecord(request, claimed, now), true);
                }
                case ClaimResult.Duplicate duplicate -> answerDuplicate(stored, fingerprint, duplicate.record(), codec,
                        enqueue);
                case ClaimResult.Locked ignored -> throw RequestInProgressException.of(stored, retryAfter);
            };
        });
    }

    /** The record a granted claim wrote, as the store's contract says it is: no second round trip to read it. */
    private static IdempotencyRecord queuedRecord(ClaimRequest request, ClaimResult.Claimed claimed, Instant now) {
        return new IdempotencyRecord(request.scope(), request.fingerprint(), RecordState.PROCESSING,
                claimed.token().attempt(), claimed.failures(), request.leaseExpiresAt(), null, null,
                claimed.token().createdAt(), now, request.expiresAt());
    }

    private <T> Submission<T> answerDuplicate(IdempotencyScope stored, Fingerprint fingerprint,
            IdempotencyRecord record, OutcomeCodec<T> codec, Consumer<IdempotencyScope> enqueue) {
        IdempotentResult<T> finished = records.replayOrWait(stored, fingerprint, record, codec);
        if (finished != null) {
            return new Submission.Finished<>(finished);
        }
        enqueue.accept(stored);
        return new Submission.Accepted<>(record, false);
    }

    <T> Resumption resume(IdempotencyScope storedScope, OutcomeCodec<T> codec,
            IdempotentWork<T, ? extends Exception> work) {
        IdempotencyRecord record = store.find(storedScope).orElse(null);
        Instant now = clock.instant();
        if (record == null || record.isExpired(now) || record.state().isTerminal()) {
            return new Resumption.Done();
        }
        if (record.isClaimableBy(record.fingerprint(), now)) {
            try {
                leased.attempt(storedScope, record.fingerprint(), codec, work, Duration.ZERO);
            } catch (IdempotencyStoreException unreachable) {
                throw unreachable;
            } catch (Exception failed) {
                log.warn("Attempt at operation={} key={} failed ({})", storedScope.operation(), storedScope.key(),
                        failed.getClass().getSimpleName());
            }
        }
        return nextStep(storedScope);
    }

    private Resumption nextStep(IdempotencyScope storedScope) {
        Instant now = clock.instant();
        IdempotencyRecord record = store.find(storedScope).orElse(null);
        if (record == null || record.state().isTerminal()) {
            return new Resumption.Done();
        }
        Instant at = record.state() == RecordState.PROCESSING ? record.leaseExpiresAt() : record.nextAttemptAt();
        return new Resumption.RetryAt(at == null || at.isBefore(now) ? now : at);
    }
}
