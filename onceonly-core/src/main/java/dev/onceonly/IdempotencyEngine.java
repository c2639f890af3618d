package dev.onceonly;

import dev.onceonly.OutcomePolicy.Decision;
import dev.onceonly.internal.ReplayCache;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.Completion;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.LeaseToken;
import dev.onceonly.spi.RecordState;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs work at most once per {@link IdempotencyScope} and gives every duplicate the first attempt's result.
 *
 * <p>How one {@link #execute} call works:
 * <ol>
 *   <li>Claim the scope in the store: insert first, read only on conflict. The store's unique key decides every
 *       race, across threads and processes.</li>
 *   <li>Claimed: run the work, encode its result, let the {@link OutcomePolicy} classify it, and store it as
 *       SUCCEEDED or FAILED_FINAL, or release the key for a retry.</li>
 *   <li>Existing record of another fingerprint: {@link IdempotencyKeyReusedException}. Finished: decode its
 *       stored response and return it as {@code replayed}. Still running: poll until it finishes or the wait
 *       runs out, then {@link RequestInProgressException}.</li>
 * </ol>
 *
 * <p>Two {@linkplain IdempotencyMode modes}:
 * <ul>
 *   <li><b>Transactional</b> (needs a {@link TransactionRunner}): claim, work and completion run in one
 *       transaction, so they commit or roll back together; a retryable outcome or an exception rolls back the
 *       claim with the business writes. A duplicate blocks in the database on the uncommitted claim for at most
 *       the remaining wait; a claim the database gave up on (lock timeout, deadlock victim) is tried again in a
 *       new transaction while the wait lasts. For short requests against one database.</li>
 *   <li><b>Leased</b> (no transaction): the claim commits at once with a lease, the work runs outside any
 *       transaction, and a fenced completion stores the outcome. An attempt whose lease ran out may be taken
 *       over by a retry; the stale attempt's completion is then refused. For work that calls other systems:
 *       pass the idempotency key on to them, so a takeover cannot repeat their effect. Choose a lease longer
 *       than the work's longest run.</li>
 * </ul>
 *
 * <p>With a wait, duplicates of an attempt that runs in this process wait for it in memory, without touching the
 * store or holding a connection, then ask the store like any duplicate; duplicates in other processes are kept
 * apart by the store alone.
 *
 * <p>If the store is unreachable when claiming, {@link IdempotencyStoreException} is thrown and the work does not
 * run. Exceptions from the work are rethrown after the key was released for a retry, except an
 * {@link OutcomeUnknownException}, whose outcome is stored as final first (and which is rethrown all the same if
 * that fails, since the work may go on). Nothing here logs or keeps a request
 * body. Immutable and thread-safe.
 */
public final class IdempotencyEngine {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyEngine.class);
    /** Tries to store a leased outcome before giving up on a store outage. */
    private static final int COMPLETE_ATTEMPTS = 3;

    private final IdempotencyStore store;
    private final Clock clock;
    private final Duration leaseDuration;
    private final Duration waitTimeout;
    private final Duration pollInterval;
    private final Duration retryAfter;
    private final Retention retention;
    private final OutcomePolicy outcomePolicy;
    private final IdempotencyMode mode;
    /** The builder's runner, kept for variants that choose transactional mode. */
    private final @Nullable TransactionRunner runner;
    /** The runner when this engine is transactional, else {@code null}. */
    private final @Nullable TransactionRunner transactions;
    private final ConcurrentMap<IdempotencyScope, CountDownLatch> inFlight = new ConcurrentHashMap<>();
    private final Duration replayCacheTimeToLive;
    private final long replayCacheMaxBytes;
    private final @Nullable ReplayCache replays;

    IdempotencyEngine(IdempotencyEngineBuilder builder) {
        this.store = builder.store;
        this.clock = builder.clock;
        this.leaseDuration = builder.leaseDuration;
        this.waitTimeout = builder.waitTimeout;
        this.pollInterval = builder.pollInterval;
        this.retryAfter = builder.retryAfter;
        this.retention = builder.retention;
        this.outcomePolicy = builder.outcomePolicy;
        this.mode = builder.resolvedMode();
        this.runner = builder.transactions;
        this.transactions = mode == IdempotencyMode.TRANSACTIONAL ? builder.transactions : null;
        this.replayCacheTimeToLive = builder.replayCacheTimeToLive;
        this.replayCacheMaxBytes = builder.replayCacheMaxBytes;
        this.replays = builder.replayCacheTimeToLive.isZero() ? null
                : builder.sharedReplays != null ? builder.sharedReplays
                : new ReplayCache(builder.clock, builder.replayCacheTimeToLive, builder.replayCacheMaxBytes);
    }

    public static IdempotencyEngineBuilder builder(IdempotencyStore store) {
        return new IdempotencyEngineBuilder(store);
    }

    /** A builder preset with this engine's settings, for a variant such as one endpoint's wait or retention. */
    public IdempotencyEngineBuilder toBuilder() {
        IdempotencyEngineBuilder builder = new IdempotencyEngineBuilder(store);
        builder.clock = clock;
        builder.leaseDuration = leaseDuration;
        builder.waitTimeout = waitTimeout;
        builder.pollInterval = pollInterval;
        builder.retryAfter = retryAfter;
        builder.retention = retention;
        builder.outcomePolicy = outcomePolicy;
        builder.mode = mode;
        builder.transactions = runner;
        builder.replayCacheTimeToLive = replayCacheTimeToLive;
        builder.replayCacheMaxBytes = replayCacheMaxBytes;
        // Variants (one per endpoint) share this engine's memory budget rather than adding their own.
        builder.sharedReplays = replays;
        return builder;
    }

    /** How this engine runs the work: {@link IdempotencyMode#TRANSACTIONAL} or {@link IdempotencyMode#LEASED}. */
    public IdempotencyMode mode() {
        return mode;
    }

    /** The hint given to duplicates that are told to retry later. */
    public Duration retryAfter() {
        return retryAfter;
    }

    /** The policy that classifies outcomes, for a variant that overrides some statuses. */
    public OutcomePolicy outcomePolicy() {
        return outcomePolicy;
    }

    /** How long outcomes are kept, for a variant that changes one of them. */
    public Retention retention() {
        return retention;
    }

    /** Purges up to {@code limit} records expired by this engine's clock through its store; returns how many. */
    public int purgeExpired(int limit) {
        return store.purgeExpired(clock.instant(), limit);
    }

    /**
     * Runs {@code work} unless this scope already has an outcome, and returns the outcome either way.
     *
     * @param scope owner, operation and key of the request
     * @param fingerprint the digest of the request, to refuse a reused key
     * @param codec turns the result into what is stored and replayed, and back
     * @param work the business operation
     * @return the fresh or the replayed result
     * @throws IdempotencyKeyReusedException if the key was used for another request in this scope
     * @throws RequestInProgressException if an earlier attempt is still running after the configured wait
     * @throws IdempotencyStoreException if the store is unreachable (the work did not run)
     * @throws OutcomeUnknownException if the work throws it; its outcome is then stored as final
     * @throws X whatever else the work throws; the key is then free for a retry
     */
    public <T, X extends Exception> IdempotentResult<T> execute(IdempotencyScope scope, Fingerprint fingerprint,
            OutcomeCodec<T> codec, IdempotentWork<T, X> work) throws X {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(codec, "codec");
        Objects.requireNonNull(work, "work");
        IdempotentResult<T> cached = cachedReplay(scope, fingerprint, codec);
        if (cached != null) {
            return cached;
        }
        long deadline = System.nanoTime() + waitTimeout.toNanos();
        if (waitTimeout.isZero()) {
            return attemptUntilDone(scope, fingerprint, codec, work, deadline);
        }
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch earlier = inFlight.putIfAbsent(scope, running);
        if (earlier != null) {
            awaitLocalAttempt(earlier, deadline);
            return attemptUntilDone(scope, fingerprint, codec, work, deadline);
        }
        try {
            return attemptUntilDone(scope, fingerprint, codec, work, deadline);
        } finally {
            inFlight.remove(scope, running);
            running.countDown();
        }
    }

    private <T> @Nullable IdempotentResult<T> cachedReplay(IdempotencyScope scope, Fingerprint fingerprint,
            OutcomeCodec<T> codec) {
        ReplayCache.Entry entry = replays == null ? null : replays.get(scope);
        if (entry == null) {
            return null;
        }
        if (!fingerprint.matches(entry.fingerprint())) {
            throw IdempotencyKeyReusedException.of(scope);
        }
        log.debug("Replayed from memory: operation={} key={}", scope.operation(), scope.key());
        return new IdempotentResult<>(codec.decode(entry.response()), true);
    }

    /**
     * Remembers a finished outcome once it is durable (committed), with the fingerprint its record holds: the bare
     * digest, not the request's, so that {@link Fingerprint#matches} compares a request with the same recorded
     * value whether the record came from the store or from memory.
     */
    private void remember(IdempotencyScope scope, Fingerprint fingerprint, StoredResponse response,
            Instant expiresAt) {
        if (replays != null) {
            replays.put(scope, Fingerprint.ofDigest(fingerprint.digest()), response, expiresAt);
        }
    }

    /**
     * A duplicate of an attempt running in this process waits for it here, holding no connection. Either way it
     * then asks the store, which alone decides: replay, still running, or (lease gone) take over.
     */
    private static void awaitLocalAttempt(CountDownLatch earlier, long deadline) {
        try {
            earlier.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private <T, X extends Exception> IdempotentResult<T> attemptUntilDone(IdempotencyScope scope,
            Fingerprint fingerprint, OutcomeCodec<T> codec, IdempotentWork<T, X> work, long deadline) throws X {
        while (true) {
            IdempotentResult<T> result = transactions == null
                    ? attemptLeased(scope, fingerprint, codec, work)
                    : attemptInTransaction(transactions, scope, fingerprint, codec, work, remaining(deadline));
            if (result != null) {
                return result;
            }
            if (!pauseBeforePolling(deadline)) {
                log.debug("Request in progress: operation={} key={}", scope.operation(), scope.key());
                throw RequestInProgressException.of(scope, retryAfter);
            }
        }
    }

    /** Returns {@code null} while another attempt holds the scope. */
    private <T, X extends Exception> @Nullable IdempotentResult<T> attemptLeased(IdempotencyScope scope,
            Fingerprint fingerprint, OutcomeCodec<T> codec, IdempotentWork<T, X> work) throws X {
        Instant now = clock.instant();
        ClaimRequest request = claimRequest(scope, fingerprint, now, Duration.ZERO, false);
        ClaimResult claim = store.claim(request, now);
        return switch (claim) {
            case ClaimResult.Claimed claimed -> runLeased(scope, fingerprint, claimed.token(), request.expiresAt(),
                    codec, work);
            case ClaimResult.Duplicate duplicate -> replayOrWait(scope, fingerprint, duplicate.record(), codec);
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
                Completion completion = completion(decision, response, now, claimExpiresAt);
                if (store.complete(scope, token, completion, now)) {
                    remember(scope, fingerprint, response, completion.expiresAt());
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
            store.release(scope, token, now.plus(retention.failed()), now);
        } catch (RuntimeException e) {
            log.warn("Could not release operation={} key={} attempt={}; it can be retried once its lease runs "
                    + "out", scope.operation(), scope.key(), token.attempt(), e);
        }
    }

    /** Returns {@code null} while another attempt holds the scope. */
    private <T, X extends Exception> @Nullable IdempotentResult<T> attemptInTransaction(
            TransactionRunner runner, IdempotencyScope scope, Fingerprint fingerprint, OutcomeCodec<T> codec,
            IdempotentWork<T, X> work, Duration lockWait) throws X {
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
                ClaimRequest request = claimRequest(scope, fingerprint, now, lockWait, true);
                ClaimResult claim = store.claim(request, now);
                return switch (claim) {
                    case ClaimResult.Claimed claimed -> runInTransaction(scope, claimed.token(), request.expiresAt(),
                            codec, work, rejection, stored, unknown);
                    case ClaimResult.Duplicate duplicate -> replayOrWait(scope, fingerprint, duplicate.record(),
                            codec);
                    // The database gave up waiting (lock timeout, deadlock victim); the transaction is lost.
                    case ClaimResult.Locked ignored -> throw new ClaimContended();
                };
            });
            Completion committed = stored.get();
            if (committed != null) {
                remember(scope, fingerprint, committed.response(), committed.expiresAt());
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
            LeaseToken token, Instant claimExpiresAt, OutcomeCodec<T> codec, IdempotentWork<T, X> work,
            AtomicReference<@Nullable Object> rejection, AtomicReference<@Nullable Completion> stored,
            AtomicReference<@Nullable OutcomeUnknownException> unknown) {
        T value;
        try {
            value = work.run();
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
        Decision decision = outcomePolicy.classify(response.status());
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
        Completion completion = completion(decision, response, now, claimExpiresAt);
        if (!store.complete(scope, token, completion, now)) {
            throw new IllegalStateException("The store refused to complete a claim made in the same transaction: "
                    + "operation=" + scope.operation() + " key=" + scope.key());
        }
        stored.set(completion);
    }

    /** Returns {@code null} if the record is still running. */
    private <T> @Nullable IdempotentResult<T> replayOrWait(IdempotencyScope scope, Fingerprint fingerprint,
            IdempotencyRecord record, OutcomeCodec<T> codec) {
        if (!fingerprint.matches(record.fingerprint())) {
            log.debug("Key reused with another request: operation={} key={}", scope.operation(), scope.key());
            throw IdempotencyKeyReusedException.of(scope);
        }
        StoredResponse response = record.response();
        if (response == null) {
            return null;
        }
        log.debug("Replayed: operation={} key={} attempt={} state={}", scope.operation(), scope.key(),
                record.attempt(), record.state());
        remember(scope, record.fingerprint(), response, record.expiresAt());
        return new IdempotentResult<>(codec.decode(response), true);
    }

    private ClaimRequest claimRequest(IdempotencyScope scope, Fingerprint fingerprint, Instant now,
            Duration lockWait, boolean transactional) {
        Instant leaseExpiresAt = now.plus(leaseDuration);
        return new ClaimRequest(scope, fingerprint, leaseExpiresAt, leaseExpiresAt.plus(retention.succeeded()),
                lockWait, transactional);
    }

    /**
     * A success keeps the expiry its claim set (lease end plus retention) while that still covers the retention:
     * completing then changes no indexed column, which lets PostgreSQL update the row in place (HOT).
     */
    private Completion completion(Decision decision, StoredResponse response, Instant now, Instant claimExpiresAt) {
        if (decision == Decision.FAILED_FINAL) {
            return new Completion(RecordState.FAILED_FINAL, response, now.plus(retention.failed()));
        }
        Instant retained = now.plus(retention.succeeded());
        return new Completion(RecordState.SUCCEEDED, response, claimExpiresAt.isAfter(retained) ? claimExpiresAt
                : retained);
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    /** Sleeps one poll interval, or what is left of the wait; {@code false} once the wait is over. */
    private boolean pauseBeforePolling(long deadline) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            return false;
        }
        LockSupport.parkNanos(Math.min(left, pollInterval.toNanos()));
        if (Thread.interrupted()) {
            Thread.currentThread().interrupt();
            return false;
        }
        return true;
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
