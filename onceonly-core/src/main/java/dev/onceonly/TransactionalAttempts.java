package dev.onceonly;

import dev.onceonly.OutcomePolicy.Decision;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.Completion;
import dev.onceonly.spi.IdempotencyStore.Insertion;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.InsertionRefusedException;
import dev.onceonly.spi.LeaseToken;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's transactional mode: claim, work and completion run in one transaction of the {@link
 * TransactionRunner}, so they commit or roll back together. With {@code writeOnce}, an attempt that holds the shared
 * cache's marker skips the claim: its work runs first and its record is written once, with the outcome, before the commit; the unique
 * scope still decides a race the cache missed, and an attempt that meets a record rolls back and claims first.
 * Immutable and thread-safe.
 */
record TransactionalAttempts(TransactionRunner runner, IdempotencyStore store, Clock clock,
        Records records, OutcomePolicy outcomePolicy, boolean writeOnce) implements Attempts {

    /** The engine's category, which users configure. */
    private static final Logger log = LoggerFactory.getLogger(IdempotencyEngine.class);

    @Override
    public <T, X extends Exception> @Nullable IdempotentResult<T> attempt(IdempotencyScope scope,
            Fingerprint fingerprint, OutcomeCodec<T> codec, IdempotentWork<T, X> work, Duration lockWait) throws X {
        boolean once = writeOnce && records.writesOnce(scope);
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
                if (once) {
                    // The shared cache's marker holds duplicates off: the work runs first, and its record is
                    // written once, with its outcome, where the unique scope still decides a race the cache missed.
                    LeaseToken token = new LeaseToken(1, now.truncatedTo(ChronoUnit.MICROS));
                    return runInTransaction(scope, token, 0, request.expiresAt(), codec, work, rejection, stored,
                            unknown, completion -> insertOnce(request, completion, now));
                }
                ClaimResult claim = store.claim(request, now);
                return switch (claim) {
                    case ClaimResult.Claimed claimed -> runInTransaction(scope, claimed.token(), claimed.failures(),
                            request.expiresAt(), codec, work, rejection, stored, unknown,
                            completion -> completeClaim(scope, claimed.token(), completion));
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
        } catch (RecordMet met) {
            // Rolled back, the work's writes with it: the scope has a record after all, which a claim now meets.
            log.debug("Record met by a write-once attempt, claiming first: operation={} key={}", scope.operation(),
                    scope.key());
            records.claimFirst(scope);
            rethrowUnknown(unknown.get());
            return attempt(scope, fingerprint, codec, work, lockWait);
        } catch (InsertionRefusedException refused) {
            // The store sent the record with the commit, which refused it: rolled back, as RecordMet or
            // ClaimContended would have, and handled alike.
            log.debug("Record refused at the commit of a write-once attempt ({}), claiming first: operation={} "
                    + "key={}", refused.insertion(), scope.operation(), scope.key());
            records.claimFirst(scope);
            rethrowUnknown(unknown.get());
            return refused.insertion() == Insertion.EXISTS ? attempt(scope, fingerprint, codec, work, lockWait)
                    : null;
        } catch (ClaimContended contended) {
            records.claimFirst(scope);
            // Work whose outcome is unknown may still take effect: never run it again, nor answer as if it had not.
            rethrowUnknown(unknown.get());
            return null;
        } catch (RollbackWithResult rolledBack) {
            if (once && recordExists(scope)) {
                return claimFirst(scope, fingerprint, codec, work, lockWait);
            }
            @SuppressWarnings("unchecked")
            T value = (T) rolledBack.value;
            return new IdempotentResult<>(value, false);
        } catch (WorkFailed failed) {
            if (once && recordExists(scope)) {
                return claimFirst(scope, fingerprint, codec, work, lockWait);
            }
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
        } catch (RuntimeException | Error failed) {
            if (once && !(failed instanceof IdempotencyException) && recordExists(scope)) {
                return claimFirst(scope, fingerprint, codec, work, lockWait);
            }
            throw failed;
        }
    }

    /**
     * Whether the scope has an unexpired record although a write-once attempt ran: Redis had forgotten the outcome
     * (its TTL is shorter than the record's, a large body is never cached, Redis restarted empty), and the work ran
     * again. Its failure or retryable result is not the answer then: the stored outcome is (issue 39). An expired
     * record is no outcome, and a store that cannot tell leaves the work's own failure as the answer.
     */
    private boolean recordExists(IdempotencyScope scope) {
        try {
            Instant now = clock.instant();
            return store.find(scope).filter(record -> !record.isExpired(now)).isPresent();
        } catch (RuntimeException unknown) {
            // Only the type: a store's message is its own to log.
            log.debug("Could not tell whether operation={} key={} has a record ({}); its work's failure is the "
                    + "answer", scope.operation(), scope.key(), unknown.getClass().getSimpleName());
            return false;
        }
    }

    /** The write-once attempt rolled back: from now on the scope claims first, and the claim meets the record. */
    private <T, X extends Exception> @Nullable IdempotentResult<T> claimFirst(IdempotencyScope scope,
            Fingerprint fingerprint, OutcomeCodec<T> codec, IdempotentWork<T, X> work, Duration lockWait) throws X {
        log.debug("A write-once attempt whose work failed met a record, claiming first: operation={} key={}",
                scope.operation(), scope.key());
        records.claimFirst(scope);
        return attempt(scope, fingerprint, codec, work, lockWait);
    }

    private static void rethrowUnknown(@Nullable OutcomeUnknownException unknown) {
        if (unknown != null) {
            throw unknown;
        }
    }

    /** How an attempt's outcome is written: completing its claim, or inserting its record once. */
    @FunctionalInterface
    private interface OutcomeWrite {
        void write(Completion completion);
    }

    /** Returns {@code null} when the work's outcome is unknown: {@code unknown} is then set, to rethrow. */
    private <T, X extends Exception> @Nullable IdempotentResult<T> runInTransaction(IdempotencyScope scope,
            LeaseToken token, int failures, Instant claimExpiresAt, OutcomeCodec<T> codec, IdempotentWork<T, X> work,
            AtomicReference<@Nullable Object> rejection, AtomicReference<@Nullable Completion> stored,
            AtomicReference<@Nullable OutcomeUnknownException> unknown, OutcomeWrite outcomeWrite) {
        T value;
        try {
            // No one takes an attempt of an open transaction over (uncommitted claim, or none): its lease holds.
            LogFields.attempt(token.attempt());
            value = work.run(Attempt.inTransaction(scope, token, failures));
        } catch (OutcomeUnknownException e) {
            // Thrown on, it rolls back what the work wrote: nothing took effect.
            e.rethrowIfRolledBack();
            // Its outcome commits with what the work wrote; the exception is rethrown after the commit, or
            // instead of the store's failure if storing or committing it fails.
            unknown.set(e);
            completeInTransaction(claimExpiresAt, Decision.FAILED_FINAL, e.outcome(), stored, outcomeWrite);
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
        completeInTransaction(claimExpiresAt, decision, response, stored, outcomeWrite);
        log.debug("Executed: operation={} key={} attempt={} status={}", scope.operation(), scope.key(),
                token.attempt(), response.status());
        return new IdempotentResult<>(value, false);
    }

    private void completeInTransaction(Instant claimExpiresAt, Decision decision, StoredResponse response,
            AtomicReference<@Nullable Completion> stored, OutcomeWrite outcomeWrite) {
        Completion completion = records.completion(decision, response, clock.instant(), claimExpiresAt);
        outcomeWrite.write(completion);
        stored.set(completion);
    }

    private void completeClaim(IdempotencyScope scope, LeaseToken token, Completion completion) {
        if (!store.complete(scope, token, completion, clock.instant())) {
            throw new IllegalStateException("The store refused to complete a claim made in the same transaction: "
                    + "operation=" + scope.operation() + " key=" + scope.key());
        }
    }

    private void insertOnce(ClaimRequest request, Completion completion, Instant claimedAt) {
        switch (store.insertFinished(request, completion, claimedAt)) {
            case INSERTED -> {
            }
            case EXISTS -> throw new RecordMet();
            case LOCKED -> throw new ClaimContended();
        }
    }

    /** Rolls back a write-once attempt that met a record, to claim first instead. */
    private static final class RecordMet extends RuntimeException {
        RecordMet() {
            super(null, null, false, false);
        }
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
