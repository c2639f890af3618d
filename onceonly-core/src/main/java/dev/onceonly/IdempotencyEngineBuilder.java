package dev.onceonly;

import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.OutcomeCache;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Builds an engine; every setting but the store has a default. Not thread-safe; the engine it builds is.
 *
 * <p>The builder is also where an engine keeps its settings: the engine holds a {@linkplain #copy() copy} no one
 * else can reach, and {@link IdempotencyEngine#toBuilder()} hands out another, so no setting is ever copied by
 * hand. What one operation sets apart from its engine is an {@link OperationPolicy}.
 */
public final class IdempotencyEngineBuilder implements Cloneable {

    /** Longest lease accepted; a lease is a bound on one run of the work, not a retention. */
    private static final Duration MAX_LEASE = Duration.ofDays(1);
    /** Longest wait accepted; a waiting duplicate holds a request thread. */
    private static final Duration MAX_WAIT = Duration.ofMinutes(10);

    final IdempotencyStore store;
    Clock clock = Clock.systemUTC();
    Duration leaseDuration = Duration.parse(IdempotencyDefaults.LEASE_DURATION);
    Duration waitTimeout = Duration.parse(IdempotencyDefaults.WAIT_TIMEOUT);
    Duration pollInterval = Duration.ofMillis(50);
    Duration retryAfter = Duration.parse(IdempotencyDefaults.RETRY_AFTER);
    Retention retention = Retention.DEFAULT;
    OutcomePolicy outcomePolicy = OutcomePolicy.standard();
    IdempotencyMode mode = IdempotencyMode.AUTO;
    @Nullable TransactionRunner transactions;
    Duration replayCacheTimeToLive = Duration.parse(IdempotencyDefaults.REPLAY_CACHE_TIME_TO_LIVE);
    long replayCacheMaxBytes = IdempotencyDefaults.REPLAY_CACHE_MAX_BYTES;
    @Nullable OutcomeCache outcomeCache;
    boolean writeOnce;
    KeyStorage keyStorage = KeyStorage.raw();
    RetryPolicy retryPolicy = RetryPolicy.DEFAULT;
    @Nullable ScheduledExecutorService heartbeats;
    /** A virtual thread per renewal: a renewal stuck on the store holds up no other. */
    Executor renewals = task -> Thread.ofVirtual().name("onceonly-renewal").start(task);
    Duration maxAttemptDuration = Duration.parse(IdempotencyDefaults.MAX_ATTEMPT_DURATION);
    Function<IdempotencyScope, StoredResponse> exhaustedOutcome = StoredProblems::attemptsExhausted;

    IdempotencyEngineBuilder(IdempotencyStore store) {
        this.store = Objects.requireNonNull(store, "store");
    }

    /** Where time comes from; default {@link Clock#systemUTC()}. */
    public IdempotencyEngineBuilder clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /** How long a leased attempt owns its record before a retry may take it over; default 30 s, at most 1 day. */
    public IdempotencyEngineBuilder leaseDuration(Duration leaseDuration) {
        this.leaseDuration = checkedLeaseDuration(leaseDuration);
        return this;
    }

    static Duration checkedLeaseDuration(Duration leaseDuration) {
        positive("leaseDuration", leaseDuration);
        if (leaseDuration.compareTo(MAX_LEASE) > 0) {
            throw IdempotencyConfigurationException.of("leaseDuration", "must be at most " + MAX_LEASE
                    + ", but is " + leaseDuration);
        }
        return leaseDuration;
    }

    /**
     * How long a duplicate waits for a running attempt to finish before it is refused; default 1 s, at most
     * 10 minutes.
     */
    public IdempotencyEngineBuilder waitTimeout(Duration waitTimeout) {
        this.waitTimeout = checkedWaitTimeout(waitTimeout);
        return this;
    }

    static Duration checkedWaitTimeout(Duration waitTimeout) {
        Objects.requireNonNull(waitTimeout, "waitTimeout");
        if (waitTimeout.isNegative() || waitTimeout.compareTo(MAX_WAIT) > 0) {
            throw IdempotencyConfigurationException.of("waitTimeout", "must be 0 to " + MAX_WAIT + ", but is "
                    + waitTimeout);
        }
        return waitTimeout;
    }

    /** How often a waiting duplicate looks again at a leased attempt; default 50 ms. */
    public IdempotencyEngineBuilder pollInterval(Duration pollInterval) {
        this.pollInterval = positive("pollInterval", pollInterval);
        return this;
    }

    /** The retry hint a refused duplicate gets; default 1 s. */
    public IdempotencyEngineBuilder retryAfter(Duration retryAfter) {
        this.retryAfter = positive("retryAfter", retryAfter);
        return this;
    }

    /** How long records are kept; default {@link Retention#DEFAULT}. */
    public IdempotencyEngineBuilder retention(Retention retention) {
        this.retention = Objects.requireNonNull(retention, "retention");
        return this;
    }

    /** Which results are stored; default {@link OutcomePolicy#standard()}. */
    public IdempotencyEngineBuilder outcomePolicy(OutcomePolicy outcomePolicy) {
        this.outcomePolicy = Objects.requireNonNull(outcomePolicy, "outcomePolicy");
        return this;
    }

    /**
     * The transactions of {@link IdempotencyMode#TRANSACTIONAL transactional mode}, which the default mode
     * {@link IdempotencyMode#AUTO} then chooses; without them the engine works in leased mode.
     */
    public IdempotencyEngineBuilder transactions(TransactionRunner transactions) {
        this.transactions = Objects.requireNonNull(transactions, "transactions");
        return this;
    }

    /**
     * How the work runs; default {@link IdempotencyMode#AUTO}: transactional when
     * {@link #transactions(TransactionRunner)} are set, else leased. {@link IdempotencyMode#TRANSACTIONAL} and
     * {@link IdempotencyMode#JOINED} without them fail at {@link #build()}.
     */
    public IdempotencyEngineBuilder mode(IdempotencyMode mode) {
        this.mode = Objects.requireNonNull(mode, "mode");
        return this;
    }

    /**
     * Keeps finished outcomes in this process for up to {@code timeToLive} (never past their record's expiry),
     * within {@code maxBytes} of bodies, so that hot replays need no store round trip; default 5 s and 16 MiB.
     * {@link Duration#ZERO} turns it off.
     */
    public IdempotencyEngineBuilder replayCache(Duration timeToLive, long maxBytes) {
        Objects.requireNonNull(timeToLive, "timeToLive");
        if (timeToLive.isNegative() || timeToLive.compareTo(MAX_WAIT) > 0 || maxBytes < 1) {
            throw IdempotencyConfigurationException.of("replayCache", "time to live must be 0 to " + MAX_WAIT
                    + " and the size positive, but are " + timeToLive + " and " + maxBytes);
        }
        this.replayCacheTimeToLive = timeToLive;
        this.replayCacheMaxBytes = maxBytes;
        return this;
    }

    /**
     * A cache the service's instances share in front of the store (the Redis one of {@code onceonly-redis}):
     * asked before the store, so that hot replays touch no database on any instance and duplicates of an attempt
     * running on another instance are told so without a database connection; fed with outcomes once they are
     * durable. The store still decides every race the cache missed, and a cache that fails is passed by. Default
     * none.
     */
    public IdempotencyEngineBuilder outcomeCache(OutcomeCache outcomeCache) {
        this.outcomeCache = Objects.requireNonNull(outcomeCache, "outcomeCache");
        return this;
    }

    /**
     * Whether a transactional first execution whose duplicates the {@linkplain #outcomeCache shared cache's} marker
     * holds off skips the claim: its work runs first and its record is written once, with its outcome, before the
     * commit (one statement instead of a claim and a completion); the unique scope still decides a race the cache
     * missed, and the attempt that loses it rolls its work back and replays the winner. Only for operations whose
     * work has no effect outside the store's transaction (no call to another system, no message, no Redis write):
     * the losing attempt's work runs before it loses, where a claim would have stopped it. Duplicates then trust the
     * marker to the end of their wait (an attempt that writes once has no record while it runs), reading the record
     * at each poll: a finished one is replayed, and without one they are refused while the marker says the attempt
     * may still run. Such an attempt's marker lasts as long as the cache would keep its outcome, which reaches the
     * cache at its first replay: until then nothing else keeps a retry from running the work again. Default
     * {@code false}.
     */
    public IdempotencyEngineBuilder writeOnce(boolean writeOnce) {
        this.writeOnce = writeOnce;
        return this;
    }

    /**
     * What is kept of each key; default {@link KeyStorage#raw()}. With a digest, the store, the replay memory, log
     * lines and exception messages only ever see the key's digest.
     */
    public IdempotencyEngineBuilder keyStorage(KeyStorage keyStorage) {
        this.keyStorage = Objects.requireNonNull(keyStorage, "keyStorage");
        return this;
    }

    /**
     * How often and how soon a leased record that failed retryably runs again, and when it ends final; default
     * {@link RetryPolicy#DEFAULT}.
     */
    public IdempotencyEngineBuilder retryPolicy(RetryPolicy retryPolicy) {
        this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
        return this;
    }

    /**
     * What ticks the heartbeats of leased attempts, every third of the lease while the work runs; the renewals
     * themselves run on the {@link #renewalExecutor}, so the ticks never block on the store. Default: one daemon
     * thread shared by every engine of this class loader that has none set.
     */
    public IdempotencyEngineBuilder heartbeatScheduler(ScheduledExecutorService scheduler) {
        this.heartbeats = Objects.requireNonNull(scheduler, "scheduler");
        return this;
    }

    /**
     * Where each lease renewal runs; default a virtual thread of its own, so that renewals stuck on a stalled
     * connection hold up only their own attempt. An attempt's next renewal waits until its last one has ended.
     */
    public IdempotencyEngineBuilder renewalExecutor(Executor renewals) {
        this.renewals = Objects.requireNonNull(renewals, "renewals");
        return this;
    }

    /**
     * How long a leased attempt's lease is renewed at most; default 15 minutes. Work that runs longer (a handler
     * that hangs) then loses its lease once it runs out, and another instance may take the record over (with the
     * same downstream keys), instead of every duplicate on every instance being refused until a restart.
     */
    public IdempotencyEngineBuilder maxAttemptDuration(Duration maxAttemptDuration) {
        this.maxAttemptDuration = positive("maxAttemptDuration", maxAttemptDuration);
        return this;
    }

    /**
     * The final outcome stored for a leased record whose last allowed attempt threw instead of returning a
     * result (one that returned a retryable result keeps that result); default a {@code 500} problem of type
     * {@code https://onceonly.dev/problems/attempts-exhausted}.
     */
    public IdempotencyEngineBuilder exhaustedOutcome(Function<IdempotencyScope, StoredResponse> outcome) {
        this.exhaustedOutcome = Objects.requireNonNull(outcome, "outcome");
        return this;
    }

    /**
     * @throws IdempotencyConfigurationException for transactional or joined mode without a {@link TransactionRunner}
     */
    public IdempotencyEngine build() {
        return new IdempotencyEngine(copy());
    }

    /** A builder with the same settings: all of them are immutable values, so a shallow copy is a full one. */
    IdempotencyEngineBuilder copy() {
        try {
            return (IdempotencyEngineBuilder) clone();
        } catch (CloneNotSupportedException e) {
            throw new AssertionError("the builder is Cloneable", e);
        }
    }

    /** The mode {@link #build()} gives the engine. */
    IdempotencyMode resolvedMode() {
        return switch (mode) {
            case AUTO -> transactions != null ? IdempotencyMode.TRANSACTIONAL : IdempotencyMode.LEASED;
            case TRANSACTIONAL, JOINED -> {
                if (transactions == null) {
                    throw IdempotencyConfigurationException.of("mode", mode.name().toLowerCase(Locale.ROOT)
                            + " mode needs a TransactionRunner, and none is set",
                            "Set transactions(…), or choose leased mode");
                }
                yield mode;
            }
            case LEASED -> IdempotencyMode.LEASED;
        };
    }

    private static Duration positive(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) {
            throw IdempotencyConfigurationException.of(name, "must be positive, but is " + value);
        }
        return value;
    }
}
