package dev.onceonly;

import dev.onceonly.OutcomePolicy.Decision;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.Completion;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.LeaseToken;
import dev.onceonly.spi.Release;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's joined mode: claim, work and completion join the transaction the caller holds, whose commit or
 * rollback decides for all three. Nothing here commits or rolls back. Immutable and thread-safe.
 */
record JoinedAttempts(TransactionRunner runner, IdempotencyStore store, Clock clock, Records records,
        OutcomePolicy outcomePolicy, Duration retryAfter) implements Attempts {

    /** The engine's category, which users configure. */
    private static final Logger log = LoggerFactory.getLogger(IdempotencyEngine.class);

    private void releaseFor(IdempotencyScope scope, LeaseToken token, Instant now) {
        store.release(scope, token, new Release(now, now.plus(records.retention().failed())), now);
    }

    private void rollBackOnly(IdempotencyScope scope) {
        if (!runner.markRollbackOnly()) {
            log.warn("Could not mark the caller's transaction rollback-only for operation={} key={}; it must roll "
                    + "back itself", scope.operation(), scope.key());
        }
    }

    @Override
    public <T, X extends Exception> @Nullable IdempotentResult<T> attempt(IdempotencyScope scope,
            Fingerprint fingerprint, OutcomeCodec<T> codec, IdempotentWork<T, X> work, Duration lockWait) throws X {
        if (!runner.isTransactionActive()) {
            throw IdempotencyConfigurationException.of("mode", "joined mode runs in the caller's transaction, but "
                    + "none is active", "Call the engine inside a transaction (@Transactional, a listener "
                    + "container's transaction manager), or choose transactional mode");
        }
        Instant now = clock.instant();
        ClaimRequest request = records.claimRequest(scope, fingerprint, now, lockWait, true);
        return switch (store.claim(request, now)) {
            case ClaimResult.Claimed claimed -> run(scope, fingerprint, claimed, request.expiresAt(), codec, work);
            case ClaimResult.Duplicate duplicate -> replay(scope, fingerprint, duplicate.record(), codec);
            case ClaimResult.Locked ignored -> {
                // The caller's transaction cannot try again (PostgreSQL aborted it), only roll back; its caller (a
                // listener container) redelivers. On MariaDB it could go on: it must not commit either.
                rollBackOnly(scope);
                throw RequestInProgressException.of(scope, retryAfter);
            }
        };
    }

    /**
     * The record may be one this very transaction wrote (a batch that holds a message twice) and may still roll
     * back: its outcome is remembered only once the transaction committed.
     */
    private <T> @Nullable IdempotentResult<T> replay(IdempotencyScope scope, Fingerprint fingerprint,
            IdempotencyRecord record, OutcomeCodec<T> codec) {
        IdempotentResult<T> replay = records.replayOrWait(scope, fingerprint, record, codec, false);
        StoredResponse response = record.response();
        if (replay != null && response != null) {
            runner.afterCompletion(committed -> {
                if (committed) {
                    records.rememberReplayed(scope, record.fingerprint(), response, record.expiresAt());
                }
            });
        }
        return replay;
    }

    private <T, X extends Exception> IdempotentResult<T> run(IdempotencyScope scope, Fingerprint fingerprint,
            ClaimResult.Claimed claimed, Instant claimExpiresAt, OutcomeCodec<T> codec, IdempotentWork<T, X> work)
            throws X {
        LeaseToken token = claimed.token();
        try {
            // The uncommitted claim cannot be taken over while the caller's transaction runs: the lease is never
            // lost.
            LogFields.attempt(token.attempt());
            T value = work.run(Attempt.inTransaction(scope, token, claimed.failures()));
            StoredResponse response = codec.encode(value);
            Decision decision = outcomePolicy.classify(response);
            Instant now = clock.instant();
            if (decision == Decision.RETRYABLE) {
                // As in transactional mode, a retryable result takes no effect: the caller's transaction cannot
                // commit. A runner that cannot say so leaves the key released, for a retry to run at once.
                if (!runner.markRollbackOnly()) {
                    releaseFor(scope, token, now);
                }
                log.debug("Retryable outcome in the caller's transaction: operation={} key={}", scope.operation(),
                        scope.key());
                return new IdempotentResult<>(value, false);
            }
            Completion completion = records.completion(decision, response, now, claimExpiresAt);
            if (!store.complete(scope, token, completion, now)) {
                throw new IllegalStateException("The store refused to store the outcome of a claim made in the "
                        + "same transaction: operation=" + scope.operation() + " key=" + scope.key());
            }
            // Remembered only once durable: a rolled-back outcome must never be replayed.
            runner.afterCompletion(committed -> {
                if (committed) {
                    records.remember(scope, fingerprint, completion.response(), completion.expiresAt());
                }
            });
            log.debug("Executed in the caller's transaction: operation={} key={} attempt={} decision={}",
                    scope.operation(), scope.key(), token.attempt(), decision);
            return new IdempotentResult<>(value, false);
        } catch (OutcomeUnknownException unknown) {
            rollBackOnly(scope);
            // The caller's transaction rolls back what the work wrote with the claim: nothing took effect.
            unknown.rethrowIfRolledBack();
            storeApart(scope, fingerprint, unknown.outcome());
            throw unknown;
        } catch (Exception | Error e) {
            // The claim and what the work wrote must roll back together, even if the caller catches this.
            rollBackOnly(scope);
            throw e;
        }
    }

    /**
     * Work that may have taken effect elsewhere (a remote call) cannot be rolled back with the claim: once the
     * caller's transaction has rolled back, its outcome is stored final in a transaction of its own, so that the
     * redelivery replays it instead of running the work again (issue 39: it ran again, silently). That transaction
     * takes a second connection from the pool while the caller's is still held. A process that dies in between, a
     * store that fails then (a pool with no connection left), or a runner that cannot begin a transaction of its
     * own leaves the key free: said loudly, as the work may run again.
     */
    private void storeApart(IdempotencyScope scope, Fingerprint fingerprint, StoredResponse outcome) {
        runner.afterCompletion(committed -> {
            if (committed) {
                return; // a runner that could not mark its transaction rollback-only: the claim stands
            }
            try {
                Instant now = clock.instant();
                ClaimRequest request = records.claimRequest(scope, fingerprint, now, Duration.ZERO, true);
                Completion completion = records.completion(Decision.FAILED_FINAL, outcome, now, request.expiresAt());
                boolean stored = runner.inNewTransaction(() -> store.claim(request, now)
                        instanceof ClaimResult.Claimed claimed
                        && store.complete(scope, claimed.token(), completion, now));
                log.warn("Outcome unknown in the caller's transaction: operation={} key={}; {}", scope.operation(),
                        scope.key(), stored ? "its outcome is stored apart and replayed to redeliveries"
                                : "another attempt holds the key now");
            } catch (RuntimeException e) {
                log.error("Outcome unknown in the caller's transaction: operation={} key={}, and it could not be "
                        + "stored apart ({}); a redelivery runs the work again", scope.operation(), scope.key(),
                        e.getClass().getName());
            }
        });
    }
}
