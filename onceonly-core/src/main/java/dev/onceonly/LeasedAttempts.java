package dev.onceonly;

import dev.onceonly.OutcomePolicy.Decision;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.Completion;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.LeaseToken;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's leased mode: the claim commits at once with a lease, the work runs outside any transaction, and a
 * fenced completion stores the outcome. Immutable and thread-safe.
 */
record LeasedAttempts(IdempotencyStore store, Clock clock, Records records, OutcomePolicy outcomePolicy,
        Duration pollInterval) implements Attempts {

    /** The engine's category, which users configure. */
    private static final Logger log = LoggerFactory.getLogger(IdempotencyEngine.class);
    /** Tries to store a leased outcome before giving up on a store outage. */
    private static final int COMPLETE_ATTEMPTS = 3;

    @Override
    public <T, X extends Exception> @Nullable IdempotentResult<T> attempt(IdempotencyScope scope,
            Fingerprint fingerprint, OutcomeCodec<T> codec, IdempotentWork<T, X> work, Duration lockWait) throws X {
        Instant now = clock.instant();
        ClaimRequest request = records.claimRequest(scope, fingerprint, now, Duration.ZERO, false);
        ClaimResult claim = store.claim(request, now);
        return switch (claim) {
            case ClaimResult.Claimed claimed -> runLeased(scope, fingerprint, claimed.token(), request.expiresAt(),
                    codec, work);
            case ClaimResult.Duplicate duplicate -> records.replayOrWait(scope, fingerprint, duplicate.record(),
                    codec);
            case ClaimResult.Locked ignored -> null;
        };
    }

    private <T, X extends Exception> IdempotentResult<T> runLeased(IdempotencyScope scope, Fingerprint fingerprint,
            LeaseToken token, Instant claimExpiresAt, OutcomeCodec<T> codec, IdempotentWork<T, X> work) throws X {
        T value;
        try {
            value = work.run();
        } catch (OutcomeUnknownException unknown) {
            completeLeased(scope, fingerprint, token, claimExpiresAt, Decision.FAILED_FINAL, unknown.outcome());
            throw unknown;
        } catch (Throwable failure) {
            releaseQuietly(scope, token);
            throw failure;
        }
        // The work has taken effect: only a retryable outcome (which the policy says a retry may repeat) releases
        // the key; any other is stored, lest a retry repeat the effect.
        StoredResponse response = codec.encode(value);
        Decision decision = outcomePolicy.classify(response.status());
        if (decision == Decision.RETRYABLE) {
            releaseQuietly(scope, token);
        } else {
            completeLeased(scope, fingerprint, token, claimExpiresAt, decision, response);
        }
        log.debug("Executed: operation={} key={} attempt={} status={}", scope.operation(), scope.key(),
                token.attempt(), response.status());
        return new IdempotentResult<>(value, false);
    }

    /**
     * The work has taken effect, so its caller gets its result even when the outcome cannot be stored. A store
     * outage is retried briefly; if it lasts, a retry after the lease runs the work again, which is why leased
     * work passes the key on to the systems it calls.
     */
    private void completeLeased(IdempotencyScope scope, Fingerprint fingerprint, LeaseToken token,
            Instant claimExpiresAt, Decision decision, StoredResponse response) {
        for (int attempt = 1; ; attempt++) {
            Instant now = clock.instant();
            try {
                Completion completion = records.completion(decision, response, now, claimExpiresAt);
                if (store.complete(scope, token, completion, now)) {
                    records.remember(scope, fingerprint, response, completion.expiresAt());
                } else {
                    log.warn("Lease lost: operation={} key={} attempt={} was taken over by a later attempt after "
                            + "its lease ran out; its outcome was not stored. Consider a longer lease.",
                            scope.operation(), scope.key(), token.attempt());
                }
                return;
            } catch (IdempotencyStoreException e) {
                if (attempt == COMPLETE_ATTEMPTS) {
                    log.warn("Could not store the outcome of operation={} key={} attempt={}; a retry after the "
                            + "lease will run again", scope.operation(), scope.key(), token.attempt(), e);
                    return;
                }
                LockSupport.parkNanos(pollInterval.toNanos() << attempt);
            }
        }
    }

    private void releaseQuietly(IdempotencyScope scope, LeaseToken token) {
        Instant now = clock.instant();
        try {
            store.release(scope, token, now.plus(records.retention().failed()), now);
        } catch (RuntimeException e) {
            log.warn("Could not release operation={} key={} attempt={}; it can be retried once its lease runs "
                    + "out", scope.operation(), scope.key(), token.attempt(), e);
        }
    }
}
