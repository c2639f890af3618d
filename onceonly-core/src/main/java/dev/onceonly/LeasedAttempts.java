package dev.onceonly;

import dev.onceonly.OutcomePolicy.Decision;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.Completion;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.LeaseToken;
import dev.onceonly.spi.RecordState;
import dev.onceonly.spi.Release;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's leased mode: the claim commits at once with a lease, the work runs outside any transaction under a
 * {@link Heartbeat} that renews the lease, and a fenced completion stores the outcome. A retryable failure leaves
 * the record FAILED_RETRYABLE with a backoff, or final once the {@link RetryPolicy} is spent. Immutable and
 * thread-safe.
 *
 * @param retryAfter the hint for a caller whose attempt lost its record to one that is still running
 * @param exhausted the final outcome of a record whose last attempt threw instead of returning a result
 */
record LeasedAttempts(IdempotencyStore store, Clock clock, Records records, OutcomePolicy outcomePolicy,
        RetryPolicy retryPolicy, Heartbeats heartbeats, Duration pollInterval, Duration retryAfter,
        Function<IdempotencyScope, StoredResponse> exhausted) implements Attempts {

    /** The engine's category, which users configure. */
    private static final Logger log = LoggerFactory.getLogger(IdempotencyEngine.class);
    /** Tries to store a leased outcome before giving up on a store outage. */
    private static final int COMPLETE_ATTEMPTS = 3;
    /**
     * How many attempts a record may reach per allowed failure before it ends final: attempts that crashed (their
     * lease ran out) are taken over without counting as failures, up to this bound.
     */
    private static final int CRASHED_ATTEMPTS_PER_FAILURE = 2;

    @Override
    public <T, X extends Exception> @Nullable IdempotentResult<T> attempt(IdempotencyScope scope,
            Fingerprint fingerprint, OutcomeCodec<T> codec, IdempotentWork<T, X> work, Duration lockWait) throws X {
        Instant now = clock.instant();
        ClaimRequest request = records.claimRequest(scope, fingerprint, now, Duration.ZERO, false);
        ClaimResult claim = store.claim(request, now);
        return switch (claim) {
            case ClaimResult.Claimed claimed -> runLeased(scope, fingerprint, claimed, request, codec, work);
            case ClaimResult.Duplicate duplicate -> {
                refuseWhileBackingOff(scope, fingerprint, duplicate.record(), now);
                yield records.replayOrWait(scope, fingerprint, duplicate.record(), codec);
            }
            case ClaimResult.Locked ignored -> null;
        };
    }

    /**
     * A retry that comes before the record's backoff passed is told at once when to come back: waiting would
     * not help, as no attempt runs.
     */
    private static void refuseWhileBackingOff(IdempotencyScope scope, Fingerprint fingerprint,
            IdempotencyRecord record, Instant now) {
        Instant nextAttemptAt = record.nextAttemptAt();
        if (record.state() == RecordState.FAILED_RETRYABLE && nextAttemptAt != null && nextAttemptAt.isAfter(now)
                && fingerprint.matches(record.fingerprint())) {
            log.debug("Backing off: operation={} key={} until {}", scope.operation(), scope.key(), nextAttemptAt);
            throw RequestInProgressException.of(scope, Duration.between(now, nextAttemptAt));
        }
    }

    /**
     * Runs the work under a heartbeat and stores its outcome. An attempt that lost its record answers with what
     * the attempt that took over stored, or, while that one runs, as in progress: it never runs the work again.
     */
    private <T, X extends Exception> IdempotentResult<T> runLeased(IdempotencyScope scope,
            Fingerprint fingerprint, ClaimResult.Claimed claimed, ClaimRequest request, OutcomeCodec<T> codec,
            IdempotentWork<T, X> work) throws X {
        LeaseToken token = claimed.token();
        if (token.attempt() > CRASHED_ATTEMPTS_PER_FAILURE * retryPolicy.maxAttempts()) {
            // Attempts that crashed count as no failure; one that kills its process every time must end all the same.
            log.warn("Attempts exhausted: operation={} key={} reached attempt {} without an outcome; it is not run "
                    + "again", scope.operation(), scope.key(), token.attempt());
            StoredResponse outcome = exhausted.apply(scope);
            store(scope, fingerprint, token, request.expiresAt(), Decision.FAILED_FINAL, outcome);
            return new IdempotentResult<>(codec.decode(outcome), false);
        }
        Heartbeat heartbeat = null;
        T value;
        try {
            heartbeat = heartbeats.start(store, clock, scope, token, request.leaseExpiresAt(),
                    records.leaseDuration());
            Attempt attempt = new Attempt(scope, token, claimed.failures(), heartbeat::isLost);
            LogFields.attempt(token.attempt());
            value = work.run(attempt);
        } catch (OutcomeUnknownException unknown) {
            stopQuietly(heartbeat);
            // Nothing rolls back here: whatever the work did stands, so its key never runs again.
            if (unknown.isDecidedByMode()) {
                log.error("The work of operation={} key={} may have taken effect without a result to store ({}); "
                        + "its key is answered with the stored final outcome from now on", scope.operation(),
                        scope.key(), unknown.getMessage());
            }
            store(scope, fingerprint, token, request.expiresAt(), Decision.FAILED_FINAL, unknown.outcome());
            throw unknown;
        } catch (LeaseLostException lost) {
            if (heartbeat != null && heartbeat.isLost()) {
                heartbeat.stop();
                log.debug("Work stopped after losing its lease: operation={} key={} attempt={}", scope.operation(),
                        scope.key(), token.attempt());
                return afterLoss(scope, fingerprint, codec);
            }
            // Another attempt's loss, from work this one called: a failure of this attempt like any other.
            stopQuietly(heartbeat);
            fail(scope, fingerprint, token, claimed.failures(), request.expiresAt(), null);
            throw lost;
        } catch (Throwable failure) {
            stopQuietly(heartbeat);
            fail(scope, fingerprint, token, claimed.failures(), request.expiresAt(), null);
            throw failure;
        }
        // Encoding and classifying are part of the attempt, under its heartbeat.
        StoredResponse response;
        Decision decision;
        try {
            response = codec.encode(value);
            decision = outcomePolicy.classify(response);
        } catch (RuntimeException | Error unstorable) {
            // The work has taken effect, but its outcome cannot be stored: a retry must not repeat the effect
            // (issue 39: the record stayed PROCESSING, and the work ran again once the lease ran out).
            heartbeat.stop();
            log.warn("The outcome of operation={} key={} attempt={} could not be encoded or classified ({}); the "
                    + "key ends with a problem", scope.operation(), scope.key(), token.attempt(),
                    unstorable.getClass().getName());
            store(scope, fingerprint, token, request.expiresAt(), Decision.FAILED_FINAL, StoredProblems.outcomeNotStorable(scope));
            throw unstorable;
        }
        heartbeat.stop();
        // The work has taken effect: only a retryable outcome (which the policy says a retry may repeat) releases
        // the key; any other is stored, lest a retry repeat the effect.
        log.debug("Executed: operation={} key={} attempt={} status={}", scope.operation(), scope.key(),
                token.attempt(), response.status());
        boolean kept = decision == Decision.RETRYABLE
                ? fail(scope, fingerprint, token, claimed.failures(), request.expiresAt(), response)
                : store(scope, fingerprint, token, request.expiresAt(), decision, response);
        return kept ? new IdempotentResult<>(value, false) : afterLoss(scope, fingerprint, codec);
    }

    private static void stopQuietly(@Nullable Heartbeat heartbeat) {
        if (heartbeat != null) {
            heartbeat.stop();
        }
    }

    private <T> IdempotentResult<T> afterLoss(IdempotencyScope scope, Fingerprint fingerprint,
            OutcomeCodec<T> codec) {
        IdempotentResult<T> successors = successorsOutcome(scope, fingerprint, codec);
        if (successors == null) {
            throw RequestInProgressException.of(scope, retryAfter);
        }
        return successors;
    }

    /**
     * The outcome of the attempt that took the record over, if it finished: what the caller of an attempt that
     * lost its lease gets, so that both callers see the same. {@code null} while it runs.
     */
    private <T> @Nullable IdempotentResult<T> successorsOutcome(IdempotencyScope scope, Fingerprint fingerprint,
            OutcomeCodec<T> codec) {
        return records.replayFound(scope, fingerprint, store.find(scope), codec, clock.instant());
    }

    /**
     * A failed attempt: the record becomes FAILED_RETRYABLE with a backoff, or, on the policy's last attempt, final
     * with the failure's response ({@code null} if the work threw: then the exhausted outcome).
     *
     * @return {@code false} if the attempt had lost the record
     */
    private boolean fail(IdempotencyScope scope, Fingerprint fingerprint, LeaseToken token, int earlierFailures,
            Instant claimExpiresAt, @Nullable StoredResponse response) {
        if (retryPolicy.isLastAttempt(earlierFailures)) {
            log.warn("Attempts exhausted: operation={} key={} failed {} times; its last problem is its final "
                    + "outcome", scope.operation(), scope.key(), earlierFailures + 1);
            return store(scope, fingerprint, token, claimExpiresAt, Decision.FAILED_FINAL,
                    response != null ? response : exhausted.apply(scope));
        }
        Instant now = clock.instant();
        Instant nextAttemptAt = now.plus(retryPolicy.backoffAfter(earlierFailures + 1));
        try {
            return store.release(scope, token, new Release(nextAttemptAt,
                    nextAttemptAt.plus(records.retention().failed())), now);
        } catch (RuntimeException e) {
            log.warn("Could not release operation={} key={} attempt={} ({}); it can be retried once its lease runs "
                    + "out", scope.operation(), scope.key(), token.attempt(), e.getClass().getSimpleName());
            return true;
        }
    }

    /**
     * Stores a final outcome. The work has taken effect, so its caller gets its result even when the outcome
     * cannot be stored: a store outage is retried briefly; if it lasts, a retry after the lease runs the work
     * again, which is why leased work passes its {@linkplain Attempt#downstreamKey downstream key} on.
     *
     * @return {@code false} if the attempt had lost the record to a later one and nothing was stored
     */
    private boolean store(IdempotencyScope scope, Fingerprint fingerprint, LeaseToken token, Instant claimExpiresAt,
            Decision decision, StoredResponse response) {
        for (int attempt = 1; ; attempt++) {
            Instant now = clock.instant();
            try {
                Completion completion = records.completion(decision, response, now, claimExpiresAt);
                if (store.complete(scope, token, completion, now)) {
                    records.remember(scope, fingerprint, response, completion.expiresAt());
                    return true;
                }
                log.warn("Lease lost: operation={} key={} attempt={} was taken over by a later attempt after its "
                        + "lease ran out; its outcome was not stored, and it answers with the later attempt's",
                        scope.operation(), scope.key(), token.attempt());
                return false;
            } catch (IdempotencyStoreException e) {
                if (attempt == COMPLETE_ATTEMPTS) {
                    log.warn("Could not store the outcome of operation={} key={} attempt={}; a retry after the "
                            + "lease will run again", scope.operation(), scope.key(), token.attempt(), e);
                    return true;
                }
                LockSupport.parkNanos(pollInterval.toNanos() << attempt);
            }
        }
    }
}
