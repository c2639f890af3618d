package dev.onceonly.spi;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyScope;

/**
 * What the engine asks before its store, holding no database connection: the finished outcome of a scope, so that a
 * hot replay reaches no database, and whether an attempt at it started somewhere, so that a duplicate waits for it
 * instead of running. The engine has one in this process (bounded in bytes, a few seconds) and may have one shared by all
 * instances of a service (Redis).
 *
 * <p>A cache is an accelerator, never the judge: the store alone decides every race a cache missed. So:
 * <ul>
 *   <li>No method throws. A cache that cannot answer (unreachable, slow, its breaker open) answers
 *       {@link Unknown}, remembers nothing, and the engine goes to the store as if it had none.</li>
 *   <li>{@link #remember} is called only once an outcome is durable (after the commit that stored it), at its first
 *       replay from the store, and keeps it no longer than its record's {@link CachedOutcome#expiresAt}: a finished
 *       record never changes before it expires, which is all that makes a cached outcome true. An attempt does not
 *       call it: that would cost every first execution a second round trip, for the few keys that are ever
 *       retried.</li>
 *   <li>A marker says an attempt started, not that it still runs: after a success it stays until the outcome
 *       reaches the cache or its own time to live ends, and a duplicate that meets it asks the store whether the
 *       attempt has finished. Its holder may die; while the marker is recent enough that its attempt may still run,
 *       duplicates are told to retry (never run), which is what they would hear from the store; an older one is taken
 *       over by the next attempt, which claims first ({@link Entered#fresh()}).</li>
 * </ul>
 * Implementations are thread-safe.
 */
public interface OutcomeCache {

    /**
     * The finished outcome of {@code scope} if known; otherwise, in a cache that keeps markers, marks an attempt at
     * it as running with {@code fingerprint} ({@link Entered}), unless another attempt's marker is there
     * ({@link Running}). One round trip at most.
     *
     * @param writesOnce whether the attempt may write its record once, at its commit, without a claim: its marker
     *     then stays after a success as long as the cache would keep the outcome, since until the first replay
     *     brings the outcome it is all that tells a duplicate that the key was used (one that found nothing would run
     *     the work before its record met the first one's, rolled back, but run). Other attempts' records tell the
     *     store that, and their markers need only last while they may run.
     */
    Entry enter(IdempotencyScope scope, Fingerprint fingerprint, boolean writesOnce);

    /** Keeps a durable outcome, and drops any marker of the scope: nothing runs once it has an outcome. */
    void remember(IdempotencyScope scope, CachedOutcome outcome);

    /** Drops the marker {@link #enter} set, unless another attempt's marker replaced it since. */
    void leave(IdempotencyScope scope, Marker marker);

    /**
     * Drops whatever the cache holds of {@code scope}, for an administrator's eviction of its record: the one call
     * whose failure the caller must hear of, as a cached outcome of an evicted record would be replayed.
     *
     * @return whether the cache is known to hold nothing of the scope now; {@code false} if it could not answer,
     *     which is also what a cache that cannot forget answers (the default)
     */
    default boolean forget(IdempotencyScope scope) {
        return false;
    }

    /** What {@link #enter} found. */
    sealed interface Entry permits Finished, Running, Entered, Unknown {
    }

    /** The scope has this outcome: replay it (or refuse a request whose fingerprint differs). */
    record Finished(CachedOutcome outcome) implements Entry {
    }

    /**
     * An attempt at the scope started recently somewhere, for a request with {@code fingerprint}, and may have
     * finished: replay its stored outcome, else wait, or answer as in progress; never run.
     */
    record Running(Fingerprint fingerprint) implements Entry {
    }

    /**
     * This caller's attempt now holds {@code marker}: ask the store, then leave it.
     *
     * @param fresh whether no attempt was marked before; {@code false} where this one took over the marker of one
     *     that started too long ago to be running still (it ended without an outcome, its process died, or its
     *     outcome has not reached the cache yet): the store may hold a record then, so the attempt claims first
     */
    record Entered(Marker marker, boolean fresh) implements Entry {
    }

    /** Nothing is known, or the cache could not answer: ask the store. */
    enum Unknown implements Entry {
        INSTANCE
    }

    /** A running attempt's marker, told apart from any other attempt's by its token. */
    record Marker(String token) {
    }
}
