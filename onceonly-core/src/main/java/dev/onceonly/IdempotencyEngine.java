package dev.onceonly;

import dev.onceonly.internal.ReplayCache;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spi.IdempotencyStore;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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
 * that fails, since the work may go on). Nothing here logs or keeps a request body. Immutable and thread-safe.
 *
 * <p>The modes live in {@link LeasedAttempts} and {@link TransactionalAttempts}, sharing {@link Records}; this
 * class keeps the public API, the wait for an attempt of this process and the polling loop.
 */
public final class IdempotencyEngine {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyEngine.class);

    /** This engine's settings, a copy of the builder's that no one else holds. */
    private final IdempotencyEngineBuilder settings;
    private final IdempotencyStore store;
    private final IdempotencyMode mode;
    /** Attempts running in this process, for duplicates to wait on: they never take over a local attempt. */
    private final ConcurrentMap<IdempotencyScope, CountDownLatch> inFlight = new ConcurrentHashMap<>();
    private final @Nullable ReplayCache replays;
    private final Records records;
    /** This engine's mode at work. */
    private final Attempts attempts;

    IdempotencyEngine(IdempotencyEngineBuilder settings) {
        this.settings = settings;
        this.store = settings.store;
        this.mode = settings.resolvedMode();
        this.replays = settings.replayCacheTimeToLive.isZero() ? null
                : settings.sharedReplays != null ? settings.sharedReplays
                : new ReplayCache(settings.clock, settings.replayCacheTimeToLive, settings.replayCacheMaxBytes);
        this.records = new Records(settings.leaseDuration, settings.retention, replays);
        TransactionRunner runner = settings.transactions;
        this.attempts = mode == IdempotencyMode.TRANSACTIONAL && runner != null
                ? new TransactionalAttempts(runner, store, settings.clock, records, settings.outcomePolicy)
                : new LeasedAttempts(store, settings.clock, records, settings.outcomePolicy, settings.retryPolicy,
                        settings.heartbeats != null ? settings.heartbeats : DefaultHeartbeats.SCHEDULER,
                        settings.pollInterval, settings.exhaustedOutcome);
    }

    public static IdempotencyEngineBuilder builder(IdempotencyStore store) {
        return new IdempotencyEngineBuilder(store);
    }

    /** A builder preset with this engine's settings, for a variant such as one endpoint's wait or retention. */
    public IdempotencyEngineBuilder toBuilder() {
        IdempotencyEngineBuilder builder = settings.copy();
        builder.mode = mode;
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
        return settings.retryAfter;
    }

    /** The policy that classifies outcomes, for a variant that overrides some statuses. */
    public OutcomePolicy outcomePolicy() {
        return settings.outcomePolicy;
    }

    /** How long outcomes are kept, for a variant that changes one of them. */
    public Retention retention() {
        return settings.retention;
    }

    /** How leased records that failed retryably run again, for a variant that changes it. */
    public RetryPolicy retryPolicy() {
        return settings.retryPolicy;
    }

    /** What this engine keeps of each key, for logging a key the way the engine does. */
    public KeyStorage keyStorage() {
        return settings.keyStorage;
    }

    /**
     * The record of {@code scope} as stored, expired or not, looked up by the client's key: the key is digested
     * first when this engine {@linkplain KeyStorage stores only digests}. The record's scope holds the key as
     * stored. For administration; requests go through {@link #execute}.
     *
     * @throws IdempotencyStoreException if the store is unreachable
     */
    public Optional<IdempotencyRecord> find(IdempotencyScope scope) {
        return store.find(settings.keyStorage.stored(scope));
    }

    /** Purges up to {@code limit} records expired by this engine's clock through its store; returns how many. */
    public int purgeExpired(int limit) {
        return store.purgeExpired(settings.clock.instant(), limit);
    }

    /**
     * Runs {@code work} unless this scope already has an outcome, and returns the outcome either way.
     *
     * @param scope owner, operation and key of the request, the key as the client sent it; the exceptions below
     *     carry it {@linkplain #keyStorage() as stored}
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
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(codec, "codec");
        Objects.requireNonNull(work, "work");
        // From here on only the key as stored exists: the store, the memory, logs and exceptions never see more.
        IdempotencyScope stored = settings.keyStorage.stored(scope);
        IdempotentResult<T> cached = records.cachedReplay(stored, fingerprint, codec);
        if (cached != null) {
            return cached;
        }
        long deadline = System.nanoTime() + settings.waitTimeout.toNanos();
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch earlier = inFlight.putIfAbsent(stored, running);
        if (earlier != null) {
            if (!awaitLocalAttempt(earlier, deadline)) {
                // Still running here: however long it takes, its lease is this process's to renew, never a
                // duplicate's to take over.
                log.debug("Request in progress in this process: operation={} key={}", stored.operation(),
                        stored.key());
                throw RequestInProgressException.of(stored, settings.retryAfter);
            }
            return attemptUntilDone(stored, fingerprint, codec, work, deadline);
        }
        try {
            return attemptUntilDone(stored, fingerprint, codec, work, deadline);
        } finally {
            inFlight.remove(stored, running);
            running.countDown();
        }
    }

    /**
     * A duplicate of an attempt running in this process waits for it here, holding no connection; once it ended,
     * the duplicate asks the store, which alone decides: replay, or run again.
     *
     * @return {@code false} if the attempt is still running when the wait is over
     */
    private static boolean awaitLocalAttempt(CountDownLatch earlier, long deadline) {
        try {
            return earlier.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private <T, X extends Exception> IdempotentResult<T> attemptUntilDone(IdempotencyScope scope,
            Fingerprint fingerprint, OutcomeCodec<T> codec, IdempotentWork<T, X> work, long deadline) throws X {
        while (true) {
            IdempotentResult<T> result = attempts.attempt(scope, fingerprint, codec, work, remaining(deadline));
            if (result != null) {
                return result;
            }
            if (!pauseBeforePolling(deadline)) {
                log.debug("Request in progress: operation={} key={}", scope.operation(), scope.key());
                throw RequestInProgressException.of(scope, settings.retryAfter);
            }
        }
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
        LockSupport.parkNanos(Math.min(left, settings.pollInterval.toNanos()));
        if (Thread.interrupted()) {
            Thread.currentThread().interrupt();
            return false;
        }
        return true;
    }

    /** The heartbeat scheduler of engines that have none set: one daemon thread, started on first use. */
    private static final class DefaultHeartbeats {
        static final ScheduledExecutorService SCHEDULER = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "onceonly-heartbeat");
            thread.setDaemon(true);
            return thread;
        });
    }
}
