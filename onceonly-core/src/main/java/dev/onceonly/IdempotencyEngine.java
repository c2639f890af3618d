package dev.onceonly;

import dev.onceonly.internal.ReplayCache;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.OutcomeCache;
import dev.onceonly.spi.Purgeable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
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
 * <p>Three {@linkplain IdempotencyMode modes} for {@code execute}, and {@link #submit}/{@link #resume} for work a
 * worker runs later:
 * <ul>
 *   <li><b>Transactional</b> (needs a {@link TransactionRunner}): claim, work and completion run in one
 *       transaction, so they commit or roll back together; a retryable outcome or an exception rolls back the
 *       claim with the business writes. A duplicate blocks in the database on the uncommitted claim for at most
 *       the remaining wait; a claim the database gave up on (lock timeout, deadlock victim) is tried again in a
 *       new transaction while the wait lasts. For short requests against one database.</li>
 *   <li><b>Leased</b> (no transaction): the claim commits at once with a lease, which a heartbeat renews while
 *       the work runs outside any transaction; a fenced completion stores the outcome. An attempt whose lease
 *       ran out (its process died or stalled) may be taken over by a retry; the stale attempt's completion is
 *       then refused and it answers with its successor's outcome. For work that calls other systems: pass
 *       {@link Attempt#downstreamKey} on to them, so a takeover cannot repeat their effect. A retryable outcome
 *       backs off by the {@link RetryPolicy}, which ends the record final after its last attempt.</li>
 *   <li><b>Joined</b> (needs a {@link TransactionRunner} and the caller's transaction): claim, work and
 *       completion join the transaction the caller holds, and its commit or rollback decides for all three; the
 *       outcome reaches this process's memory only after the commit. For message consumers and work inside a
 *       caller's transaction.</li>
 *   <li><b>Asynchronous</b> ({@link #submit}, {@link #resume}): a short transaction stores the record and a
 *       worker's task; the worker runs leased attempts until the record has its outcome.</li>
 * </ul>
 *
 * <p>Duplicates of an attempt that runs in this process wait for it in memory (for at most the wait), without
 * touching the store or holding a connection, and are refused while it still runs: they never take it over. Once
 * it ended they ask the store like any duplicate; duplicates in other processes are kept apart by the store
 * alone.
 *
 * <p>If the store is unreachable when claiming, {@link IdempotencyStoreException} is thrown and the work does not
 * run. Exceptions from the work are rethrown after the attempt was recorded as failed (in transactional mode rolled
 * back; in leased mode released for a retry after the backoff, or final on the policy's last attempt), except an
 * {@link OutcomeUnknownException}, whose outcome is stored as final first (and which is rethrown all the same if
 * that fails, since the work may go on). Nothing here logs or keeps a request body. Immutable and thread-safe.
 *
 * <p>The modes live in {@link LeasedAttempts}, {@link TransactionalAttempts} and {@link AsynchronousAttempts},
 * sharing {@link Records}; this
 * class keeps the public API, the wait for an attempt of this process and the polling loop.
 */
public final class IdempotencyEngine {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyEngine.class);

    /** This engine's settings, a copy of the builder's that no one else holds. */
    private final IdempotencyEngineBuilder settings;
    private final IdempotencyStore store;
    private final IdempotencyMode mode;
    /** Attempts running in this process, for duplicates to wait on: they never take over a local attempt. */
    private final ConcurrentMap<IdempotencyScope, CompletableFuture<Void>> inFlight;
    private final @Nullable ReplayCache replays;
    private final Records records;
    /** This engine's mode at work. */
    private final Attempts attempts;
    private final RecordAdministration administration;
    /** Operations run by workers, whose attempts are leased in every mode. */
    private final AsynchronousAttempts asynchronous;
    /** Whether this engine's first executions may write their record once: transactional, asked for, and able. */
    private final boolean writesOnce;

    IdempotencyEngine(IdempotencyEngineBuilder settings) {
        this(settings, null);
    }

    /**
     * @param operationOf the engine whose operation this one runs ({@link #forOperation}): its memory of replays and
     *     its attempts running here are this one's too, so an operation adds no memory budget of its own and never
     *     takes over an attempt of this process
     */
    private IdempotencyEngine(IdempotencyEngineBuilder settings, @Nullable IdempotencyEngine operationOf) {
        this.settings = settings;
        this.store = settings.store;
        this.mode = settings.resolvedMode();
        this.inFlight = operationOf != null ? operationOf.inFlight : new ConcurrentHashMap<>();
        this.replays = operationOf != null ? operationOf.replays : settings.replayCacheTimeToLive.isZero() ? null
                : new ReplayCache(settings.clock, settings.replayCacheTimeToLive, settings.replayCacheMaxBytes);
        this.records = new Records(settings.leaseDuration, settings.retention, replays, settings.outcomeCache);
        TransactionRunner runner = settings.transactions;
        this.writesOnce = mode == IdempotencyMode.TRANSACTIONAL && settings.writeOnce && store.insertsFinished();
        LeasedAttempts leased = new LeasedAttempts(store, settings.clock, records, settings.outcomePolicy,
                settings.retryPolicy, new Heartbeats(settings.heartbeats != null ? settings.heartbeats
                        : DefaultHeartbeats.SCHEDULER, settings.renewals, settings.maxAttemptDuration),
                settings.pollInterval, settings.retryAfter, settings.exhaustedOutcome);
        this.asynchronous = new AsynchronousAttempts(store, settings.clock, records, leased, settings.waitTimeout,
                settings.retryAfter);
        this.attempts = switch (mode) {
            case TRANSACTIONAL -> new TransactionalAttempts(Objects.requireNonNull(runner), store, settings.clock,
                    records, settings.outcomePolicy, writesOnce);
            case JOINED -> new JoinedAttempts(Objects.requireNonNull(runner), store, settings.clock, records,
                    settings.outcomePolicy, settings.retryAfter);
            case LEASED, AUTO -> leased;
        };
        this.administration = new RecordAdministration(store, settings.clock, settings.keyStorage,
                settings.retention, replays, settings.outcomeCache);
    }

    public static IdempotencyEngineBuilder builder(IdempotencyStore store) {
        return new IdempotencyEngineBuilder(store);
    }

    /**
     * A builder preset with this engine's settings, for another engine on the same store (such as one with
     * transactions this one lacks). The engine it builds shares nothing with this one; for one operation's own
     * mode, wait, retention, lease or retries, use {@link #forOperation}.
     */
    public IdempotencyEngineBuilder toBuilder() {
        IdempotencyEngineBuilder builder = settings.copy();
        builder.mode = mode;
        return builder;
    }

    /**
     * This engine with {@code transactions}, for operations that run transactional or joined (a message consumer's)
     * where this engine has none or others; in its mode, on its store, memory of replays and attempts running here.
     */
    public IdempotencyEngine withTransactions(TransactionRunner transactions) {
        IdempotencyEngineBuilder withTransactions = settings.copy();
        withTransactions.mode = mode;
        withTransactions.transactions(transactions);
        return new IdempotencyEngine(withTransactions, this);
    }

    /**
     * This engine as one operation runs it: by {@code policy} where it says, by this engine's settings elsewhere,
     * on this engine's store, memory of replays and attempts running here (an operation never takes over an
     * attempt of this process, nor adds a memory budget of its own).
     *
     * @throws IdempotencyConfigurationException for a transactional or joined policy on an engine without a
     *     {@link TransactionRunner}
     */
    public IdempotencyEngine forOperation(OperationPolicy policy) {
        if (policy.equals(OperationPolicy.ENGINE_DEFAULTS)) {
            return this;
        }
        IdempotencyEngineBuilder operation = settings.copy();
        operation.mode = mode;
        policy.applyTo(operation);
        return new IdempotencyEngine(operation, this);
    }

    /**
     * How this engine runs the work: {@link IdempotencyMode#TRANSACTIONAL}, {@link IdempotencyMode#LEASED} or
     * {@link IdempotencyMode#JOINED}; never {@link IdempotencyMode#AUTO}.
     */
    public IdempotencyMode mode() {
        return mode;
    }

    /**
     * The clock of every instant this engine writes and compares: what components beside it (cleanup, workers,
     * status resources) read, so that all agree with the records on what "now" is.
     */
    public Clock clock() {
        return settings.clock;
    }

    /** How long a duplicate waits for the attempt it duplicates. */
    public Duration waitTimeout() {
        return settings.waitTimeout;
    }

    /** The hint given to duplicates that are told to retry later. */
    public Duration retryAfter() {
        return settings.retryAfter;
    }

    /** The policy that classifies outcomes, for an {@link OperationPolicy} that overrides some statuses. */
    public OutcomePolicy outcomePolicy() {
        return settings.outcomePolicy;
    }

    /** How long outcomes are kept, for an {@link OperationPolicy} that changes one of them. */
    public Retention retention() {
        return settings.retention;
    }

    /** How leased records that failed retryably run again, for an {@link OperationPolicy} that changes it. */
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
        return administration.find(scope);
    }

    /**
     * The record of a scope whose key is already {@linkplain #keyStorage() as stored}, as {@link Submission.Accepted}
     * and a worker's task hold it: for a status resource.
     *
     * @throws IdempotencyStoreException if the store is unreachable
     */
    public Optional<IdempotencyRecord> findStored(IdempotencyScope storedScope) {
        return store.find(storedScope);
    }

    /**
     * Accepts an operation that a worker runs later (asynchronous mode): one short transaction of the engine's
     * {@link TransactionRunner} stores the record as PROCESSING, with no attempt running yet, and calls
     * {@code enqueue} to store the worker's task in the same transaction, so that both commit or neither does. The
     * worker then calls {@link #resume}. A duplicate gets the record as it stands, or the stored outcome once
     * the operation has finished; it never runs anything. Nothing waits here.
     *
     * @param scope owner, operation and key, the key as the client sent it
     * @param enqueue stores the task that resumes the scope, given the scope as stored (pass that to
     *     {@link #resume}); must be idempotent per scope, as duplicates of an unfinished operation call it again,
     *     to re-queue one whose task was lost
     * @throws IdempotencyConfigurationException if the engine has no {@link TransactionRunner}: without one the
     *     record could commit without its task and never finish
     * @throws IdempotencyKeyReusedException if the key was used for another request in this scope
     * @throws RequestInProgressException if another submission of the scope has not committed within the wait
     */
    public <T> Submission<T> submit(IdempotencyScope scope, Fingerprint fingerprint, OutcomeCodec<T> codec,
            Consumer<IdempotencyScope> enqueue) {
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(codec, "codec");
        Objects.requireNonNull(enqueue, "enqueue");
        TransactionRunner runner = settings.transactions;
        if (runner == null) {
            throw IdempotencyConfigurationException.of("transactions", "asynchronous operations need a "
                    + "TransactionRunner, so that the record and the worker's task commit together",
                    "Set transactions(…) on the engine builder (the JDBC store's SpringTransactionRunner)");
        }
        IdempotencyScope stored = settings.keyStorage.stored(scope);
        try (LogFields.Scope fields = LogFields.open(stored)) {
            return asynchronous.submit(runner, stored, fingerprint, codec, enqueue);
        }
    }

    /**
     * Runs the next attempt at an accepted operation, for the worker whose task {@link #submit} stored: takes the
     * record over as a leased attempt (renewed while {@code work} runs, fenced when it stores the outcome) unless
     * it has finished, another attempt holds its lease, or it backs off after a failure. An exception of the work
     * was already recorded as a failure (retryable, or final once the {@link RetryPolicy} is spent; an
     * {@link OutcomeUnknownException} as its final outcome) and is logged by type only, not rethrown, unless it is
     * an {@link IdempotencyStoreException} or an {@link Error}: the answer tells the worker what to do next.
     *
     * @param storedScope the scope as {@link #submit} gave it to {@code enqueue}
     * @throws IdempotencyStoreException if the store is unreachable; the worker tries again later
     */
    public <T> Resumption resume(IdempotencyScope storedScope, OutcomeCodec<T> codec,
            IdempotentWork<T, ? extends Exception> work) {
        Objects.requireNonNull(codec, "codec");
        Objects.requireNonNull(work, "work");
        try (LogFields.Scope fields = LogFields.open(storedScope)) {
            return asynchronous.resume(storedScope, codec, work);
        }
    }

    /** Look-ups, evictions, releases and counts for administrators, on this engine's store and caches. */
    public RecordAdministration administration() {
        return administration;
    }

    /** Purges up to {@code limit} records expired by this engine's clock through its store; returns how many. */
    public int purgeExpired(int limit) {
        return expiredRecords().purge(settings.clock.instant(), limit);
    }

    /** The records past their retention, purged through this engine's store (with its decorators), named records. */
    public Purgeable expiredRecords() {
        return new Purgeable() {
            @Override
            public String name() {
                return "records";
            }

            @Override
            public int purge(Instant now, int limit) {
                return store.purgeExpired(now, limit);
            }
        };
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
     * @throws X whatever else the work throws; the attempt then counts as failed (see {@link RetryPolicy})
     */
    public <T, X extends Exception> IdempotentResult<T> execute(IdempotencyScope scope, Fingerprint fingerprint,
            OutcomeCodec<T> codec, IdempotentWork<T, X> work) throws X {
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(codec, "codec");
        Objects.requireNonNull(work, "work");
        // From here on only the key as stored exists: the store, the memory, logs and exceptions never see more.
        IdempotencyScope stored = settings.keyStorage.stored(scope);
        try (LogFields.Scope fields = LogFields.open(stored)) {
            IdempotentResult<T> result = executeStored(stored, fingerprint, codec, work);
            LogFields.outcome(result.replayed(), null);
            return result;
        }
    }

    /**
     * The attempt at {@code scope} that runs in this process now, if one does: the stage completes when it has
     * ended. For callers that must not block while a duplicate waits, such as a reactive server, which wait for it
     * without a thread and call {@link #execute} after.
     */
    public Optional<CompletionStage<Void>> attemptRunningHere(IdempotencyScope scope) {
        IdempotencyScope stored = settings.keyStorage.stored(scope);
        CompletableFuture<Void> running = inFlight.get(stored);
        if (running == null) {
            return Optional.empty();
        }
        awaiting(stored);
        return Optional.of(running.minimalCompletionStage());
    }

    /**
     * The outcome of {@code scope} if this process still remembers it (its replay memory), without asking the store
     * or a shared cache: for callers that must not block, such as a reactive server's event loop, which call
     * {@link #execute} elsewhere when this is empty.
     *
     * @throws IdempotencyKeyReusedException if the remembered outcome is of another request
     */
    public <T> Optional<IdempotentResult<T>> replayFromMemory(IdempotencyScope scope, Fingerprint fingerprint,
            OutcomeCodec<T> codec) {
        return Optional.ofNullable(records.cachedReplay(settings.keyStorage.stored(scope), fingerprint, codec));
    }

    private <T, X extends Exception> IdempotentResult<T> executeStored(IdempotencyScope stored,
            Fingerprint fingerprint, OutcomeCodec<T> codec, IdempotentWork<T, X> work) throws X {
        IdempotentResult<T> cached = records.cachedReplay(stored, fingerprint, codec);
        if (cached != null) {
            return cached;
        }
        long deadline = System.nanoTime() + settings.waitTimeout.toNanos();
        CompletableFuture<Void> running = new CompletableFuture<>();
        // Only a registered call asks the store, so that whatever it claims is known here while it runs.
        for (CompletableFuture<Void> earlier = inFlight.putIfAbsent(stored, running); earlier != null;
                earlier = inFlight.putIfAbsent(stored, running)) {
            awaiting(stored);
            if (!awaitLocalAttempt(earlier, deadline)) {
                // Still running here: however long it takes, its lease is this process's to renew, never a
                // duplicate's to take over.
                log.debug("Request in progress in this process: operation={} key={}", stored.operation(),
                        stored.key());
                throw RequestInProgressException.of(stored, settings.retryAfter);
            }
            IdempotentResult<T> awaited = records.cachedReplay(stored, fingerprint, codec);
            if (awaited != null) {
                return awaited;
            }
        }
        try {
            OutcomeCache shared = settings.outcomeCache;
            return shared == null ? attemptUntilDone(stored, fingerprint, codec, work, deadline)
                    : attemptPastSharedCache(shared, stored, fingerprint, codec, work, deadline);
        } finally {
            if (replays != null) {
                // The outcome, if any, was kept already; a note left by a duplicate that came too late goes.
                replays.takeAwaited(stored);
            }
            inFlight.remove(stored, running);
            running.complete(null);
        }
    }

    /** A duplicate waits for the attempt at {@code stored} running here: its outcome is kept in memory for it. */
    private void awaiting(IdempotencyScope stored) {
        if (replays != null) {
            replays.markAwaited(stored);
        }
    }

    /**
     * Asks the shared cache first: a finished outcome there is replayed without the store. A marker of the same
     * request means an attempt started elsewhere and may have ended (a marker stays until the outcome's first
     * replay): the duplicate reads the store's record at each poll, replays a finished one (which the shared cache
     * then keeps), and waits while the marker stays, at most its wait; then, still marked, it asks the store once,
     * which refuses it only if the attempt really runs (with write-once, whose attempts have no record while they
     * run, it is refused). Without a marker, or with one too old for its attempt to be running still, the attempt
     * goes to the store, marked as running while it does; after an old one it claims first, since the store may hold
     * the old attempt's record.
     */
    private <T, X extends Exception> IdempotentResult<T> attemptPastSharedCache(OutcomeCache shared,
            IdempotencyScope scope, Fingerprint fingerprint, OutcomeCodec<T> codec, IdempotentWork<T, X> work,
            long deadline) throws X {
        while (true) {
            switch (shared.enter(scope, fingerprint, writesOnce)) {
                case OutcomeCache.Finished finished -> {
                    IdempotentResult<T> replay = records.sharedReplay(scope, fingerprint, finished.outcome(), codec);
                    if (replay != null) {
                        return replay;
                    }
                    return attemptUntilDone(scope, fingerprint, codec, work, deadline);
                }
                case OutcomeCache.Running running -> {
                    if (!fingerprint.matches(running.fingerprint())) {
                        throw IdempotencyKeyReusedException.of(scope);
                    }
                    // A marker outlives an attempt that finished: the shared cache learns the outcome from its
                    // first replay, this one (Records#rememberReplayed). Only the store tells whether it ended.
                    IdempotentResult<T> ended = committedOutcome(scope, fingerprint, codec);
                    if (ended != null) {
                        return ended;
                    }
                    if (!pauseBeforePolling(deadline)) {
                        if (writesOnce) {
                            // The attempt may be one that writes once: it has no record while it runs, so only its
                            // marker tells that it does; the store had no finished record at the last poll.
                            log.debug("Request in progress on another instance: operation={} key={}",
                                    scope.operation(), scope.key());
                            throw RequestInProgressException.of(scope, settings.retryAfter);
                        }
                        // A marker can outlive an attempt that never finished (its process died): before a
                        // duplicate is refused, the store decides, once.
                        log.debug("Marked as running elsewhere all through the wait, asking the store: operation={} "
                                + "key={}", scope.operation(), scope.key());
                        return attemptUntilDone(scope, fingerprint, codec, work, deadline);
                    }
                }
                case OutcomeCache.Entered entered -> {
                    records.holdMarker(scope, entered.marker(), entered.fresh());
                    try {
                        return attemptUntilDone(scope, fingerprint, codec, work, deadline);
                    } finally {
                        // Also when the attempt rolled back: its duplicates must not wait for the marker to expire.
                        OutcomeCache.Marker left = records.takeMarker(scope);
                        if (left != null) {
                            shared.leave(scope, left);
                        }
                    }
                }
                case OutcomeCache.Unknown ignored -> {
                    return attemptUntilDone(scope, fingerprint, codec, work, deadline);
                }
            }
        }
    }

    /**
     * The replay of the scope's finished, unexpired record, for a duplicate that faces another attempt's marker;
     * {@code null} if there is none, or if the store cannot tell now (the duplicate then waits, and is refused as in
     * progress, as the marker says, rather than answered as if the store were down).
     */
    private <T> @Nullable IdempotentResult<T> committedOutcome(IdempotencyScope scope, Fingerprint fingerprint,
            OutcomeCodec<T> codec) {
        Optional<IdempotencyRecord> record;
        try {
            record = settings.store.find(scope);
        } catch (IdempotencyStoreException unknown) {
            return null;
        }
        // A joined attempt reads in its caller's transaction, which sees its own uncommitted records: never kept.
        return records.replayFound(scope, fingerprint, record, codec, settings.clock.instant(),
                mode != IdempotencyMode.JOINED);
    }

    /**
     * A duplicate of an attempt running in this process waits for it here, holding no connection; once it ended,
     * the duplicate asks the store, which alone decides: replay, or run again.
     *
     * @return {@code false} if the attempt is still running when the wait is over
     */
    private static boolean awaitLocalAttempt(CompletableFuture<Void> earlier, long deadline) {
        try {
            earlier.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (TimeoutException stillRunning) {
            return false;
        } catch (ExecutionException never) {
            // Completed normally only; here for the checked signature.
            return true;
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
