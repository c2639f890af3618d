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
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's transactional mode: claim, work and completion run in one transaction of the {@link
 * TransactionRunner}, so they commit or roll back together. Immutable and thread-safe.
 */
record TransactionalAttempts(TransactionRunner runner, IdempotencyStore store, Clock clock,
        Records records, OutcomePolicy outcomePolicy) implements Attempts {

    /** The engine's category, which users configure. */
    private static final Logger log = LoggerFactory.getLogger(IdempotencyEngine.class);

    @Override
    public <T, X extends Exception> @Nullable IdempotentResult<T> attempt(IdempotencyScope scope,
            Fingerprint fingerprint, OutcomeCodec<T> codec, IdempotentWork<T, X> work, Duration lockWait) throws X {
        AtomicReference<@Nullable Object> rejection = new AtomicReference<>();
        AtomicReference<@Nullable Completion> stored = new AtomicReference<>();
        AtomicReference<@Nullable OutcomeUnknownException> unknown = new AtomicReference<>();
        try {
            @Nullable IdempotentResult<T> result = runner.inTransaction(() -> {
                // A runner that retries its callback must not carry over what a rolled-back try recorded.
                rejection.set(null);
                stored.set(null);
                unknown.set(null);
                Instant now = clock.instant();
                ClaimRequest request = records.claimRequest(scope, fingerprint, now, lockWait, true);
                ClaimResult claim = store.claim(request, now);
                return switch (claim) {
                    case ClaimResult.Claimed claimed -> runInTransaction(scope, claimed, request.expiresAt(),
                            codec, work, rejection, stored, unknown);
                    case ClaimResult.Duplicate duplicate -> records.replayOrWait(scope, fingerprint,
                            duplicate.record(), codec);
                    // The database gave up waiting (lock timeout, deadlock victim); the transaction is lost.
                    case ClaimResult.Locked ignored -> throw new ClaimContended();
                };
            });
            Completion committed = stored.get();
            if (committed != null) {
                records.remember(scope, fingerprint, committed.response(), committed.expiresAt());
            }
            OutcomeUnknownException unknownOutcome = unknown.get();
            if (unknownOutcome != null) {
                throw unknownOutcome;
            }
            return result;
        } catch (ClaimContended contended) {
            return null;
        } catch (RollbackWithResult rolledBack) {
            @SuppressWarnings("unchecked")
            T value = (T) rolledBack.value;
            return new IdempotentResult<>(value, false);
        } catch (WorkFailed failed) {
            @SuppressWarnings("unchecked")
            X cause = (X) failed.getCause();
            throw cause;
        } catch (IdempotencyStoreException | TransactionRollbackException storing) {
            OutcomeUnknownException unknownOutcome = unknown.get();
            if (unknownOutcome != null) {
                // The work may still take effect (it went on asynchronously), so its caller must not hear "nothing
                // ran"; the key is free again, as nothing was committed. Only the type: no database text.
                log.warn("Could not store the outcome of operation={} key={} whose outcome is unknown ({}); "
                        + "answered as unknown without storing it", scope.operation(), scope.key(),
                        storing.getClass().getSimpleName());
                throw unknownOutcome;
            }
            if (rejection.get() == null) {
                throw storing;
            }
            // The work rejected the request, and its transaction cannot commit (the business code marked it
            // rollback-only, or a caught database error aborted it): nothing took effect, so the rejection is
            // answered without being stored, and a retry runs again.
            // Only the exception's type: database messages may quote row values.
            log.warn("Could not store the final rejection of operation={} key={} ({}); answered without storing it",
                    scope.operation(), scope.key(), storing.getClass().getSimpleName());
            @SuppressWarnings("unchecked")
            T value = (T) rejection.get();
            return new IdempotentResult<>(value, false);
        }
    }

    /** Returns {@code null} when the work's outcome is unknown: {@code unknown} is then set, to rethrow. */
    private <T, X extends Exception> @Nullable IdempotentResult<T> runInTransaction(IdempotencyScope scope,
            ClaimResult.Claimed claimed, Instant claimExpiresAt, OutcomeCodec<T> codec, IdempotentWork<T, X> work,
            AtomicReference<@Nullable Object> rejection, AtomicReference<@Nullable Completion> stored,
            AtomicReference<@Nullable OutcomeUnknownException> unknown) {
        LeaseToken token = claimed.token();
        T value;
        try {
            // The uncommitted claim cannot be taken over while the transaction runs: the lease is never lost.
            value = work.run(new Attempt(scope, token, claimed.failures(), () -> false));
        } catch (OutcomeUnknownException e) {
            // Its outcome commits with what the work wrote; the exception is rethrown after the commit, or
            // instead of the store's failure if storing or committing it fails.
            unknown.set(e);
            completeInTransaction(scope, token, claimExpiresAt, Decision.FAILED_FINAL, e.outcome(), stored);
            return null;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception checked) {
            throw new WorkFailed(checked);
        }
        StoredResponse response = codec.encode(value);
        Decision decision = outcomePolicy.classify(response);
        if (decision == Decision.RETRYABLE) {
            log.debug("Retryable outcome, rolling back: operation={} key={} status={}", scope.operation(),
                    scope.key(), response.status());
            throw new RollbackWithResult(value);
        }
        if (decision == Decision.FAILED_FINAL) {
            rejection.set(value);
        }
        completeInTransaction(scope, token, claimExpiresAt, decision, response, stored);
        log.debug("Executed: operation={} key={} attempt={} status={}", scope.operation(), scope.key(),
                token.attempt(), response.status());
        return new IdempotentResult<>(value, false);
    }

    private void completeInTransaction(IdempotencyScope scope, LeaseToken token, Instant claimExpiresAt,
            Decision decision, StoredResponse response, AtomicReference<@Nullable Completion> stored) {
        Instant now = clock.instant();
        Completion completion = records.completion(decision, response, now, claimExpiresAt);
        if (!store.complete(scope, token, completion, now)) {
            throw new IllegalStateException("The store refused to complete a claim made in the same transaction: "
                    + "operation=" + scope.operation() + " key=" + scope.key());
        }
        stored.set(completion);
    }

    /** Carries a retryable result out of the transaction it rolls back. */
    private static final class RollbackWithResult extends RuntimeException {
        private final transient Object value;

        RollbackWithResult(Object value) {
            super(null, null, false, false);
            this.value = value;
        }
    }

    /** Rolls back a transaction whose claim lost its lock wait, so that the claim can be tried again. */
    private static final class ClaimContended extends RuntimeException {
        ClaimContended() {
            super(null, null, false, false);
        }
    }

    /** Carries the work's checked exception through a {@link TransactionRunner}. */
    private static final class WorkFailed extends RuntimeException {
        WorkFailed(Exception cause) {
            super(cause.getMessage(), cause, false, false);
        }
    }
}
