package dev.onceonly;

import dev.onceonly.OutcomePolicy.Decision;
import dev.onceonly.internal.ReplayCache;
import dev.onceonly.spi.CachedOutcome;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.Completion;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spi.OutcomeCache;
import dev.onceonly.spi.RecordState;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every mode does with records: the claim an attempt asks for, the completion it stores, and the replay of a
 * finished record, from the store, this process's memory or the shared cache. Immutable and thread-safe.
 *
 * @param replays this process's memory of finished outcomes, if any
 * @param shared the cache the service's instances share, if any
 */
record Records(Duration leaseDuration, Retention retention, @Nullable ReplayCache replays,
        @Nullable OutcomeCache shared, ConcurrentMap<IdempotencyScope, HeldMarker> markers) {

    /**
     * The shared cache's marker of the attempt at a scope running in this process, and whether that attempt may
     * still write its record once at commit instead of claiming first.
     */
    record HeldMarker(OutcomeCache.Marker marker, boolean writeOnce) {
    }

    Records(Duration leaseDuration, Retention retention, @Nullable ReplayCache replays,
            @Nullable OutcomeCache shared) {
        this(leaseDuration, retention, replays, shared, new ConcurrentHashMap<>());
    }

    /** The engine's category, which users configure. */
    private static final Logger log = LoggerFactory.getLogger(IdempotencyEngine.class);

    ClaimRequest claimRequest(IdempotencyScope scope, Fingerprint fingerprint, Instant now, Duration lockWait,
            boolean transactional) {
        Instant leaseExpiresAt = now.plus(leaseDuration);
        return new ClaimRequest(scope, fingerprint, leaseExpiresAt, leaseExpiresAt.plus(retention.abandonedOrSucceeded()),
                lockWait, transactional);
    }

    /**
     * The claim of an operation that a worker runs later: no attempt runs yet, so its lease is over at once and the
     * worker's first attempt takes it over.
     */
    ClaimRequest queuedClaimRequest(IdempotencyScope scope, Fingerprint fingerprint, Instant now, Duration lockWait) {
        // Kept as a success is: waiting in a queue is no abandoned attempt.
        return new ClaimRequest(scope, fingerprint, now, now.plus(leaseDuration).plus(retention.succeeded()),
                lockWait, true, false);
    }

    /**
     * A success keeps the expiry its claim set (lease end plus the abandoned retention) while that still covers the
     * succeeded retention by at most a lease: completing then changes no indexed column, which lets PostgreSQL
     * update the row in place (HOT). With an abandoned retention of its own, the claim's expiry is another, and a
     * success gets its own.
     */
    Completion completion(Decision decision, StoredResponse response, Instant now, Instant claimExpiresAt) {
        if (decision == Decision.FAILED_FINAL) {
            return new Completion(RecordState.FAILED_FINAL, response, now.plus(retention.failed()));
        }
        Instant retained = now.plus(retention.succeeded());
        boolean keepClaimsExpiry = claimExpiresAt.isAfter(retained)
                && !claimExpiresAt.isAfter(retained.plus(leaseDuration));
        return new Completion(RecordState.SUCCEEDED, response, keepClaimsExpiry ? claimExpiresAt : retained);
    }

    /** The outcome this process remembers for {@code scope}, if any. */
    <T> @Nullable IdempotentResult<T> cachedReplay(IdempotencyScope scope, Fingerprint fingerprint,
            OutcomeCodec<T> codec) {
        CachedOutcome outcome = replays == null ? null : replays.get(scope);
        return outcome == null ? null : replayCached(scope, fingerprint, outcome, codec, "memory");
    }

    /**
     * Notes the marker the shared cache gave the attempt at {@code scope} running in this process (one at a time:
     * duplicates here wait for it), for {@link #takeMarker} once the attempt ended.
     *
     * @param fresh whether the scope had no marker before ({@link OutcomeCache.Entered#fresh()}): only then may the
     *     attempt write its record once
     */
    void holdMarker(IdempotencyScope scope, OutcomeCache.Marker marker, boolean fresh) {
        markers.put(scope, new HeldMarker(marker, fresh));
    }

    /** The marker still to leave, or {@code null} if remembering the attempt's outcome dropped it already. */
    OutcomeCache.@Nullable Marker takeMarker(IdempotencyScope scope) {
        HeldMarker held = markers.remove(scope);
        return held == null ? null : held.marker();
    }

    /**
     * Whether the attempt at {@code scope} may run without a claim and write its record once at commit: it holds
     * the shared cache's marker, so duplicates elsewhere are held off, and no try of it met a record yet.
     */
    boolean writesOnce(IdempotencyScope scope) {
        HeldMarker held = markers.get(scope);
        return held != null && held.writeOnce();
    }

    /** The attempt at {@code scope} met a record (Redis missed it): from now on it claims first. */
    void claimFirst(IdempotencyScope scope) {
        markers.computeIfPresent(scope, (ignored, held) -> new HeldMarker(held.marker(), false));
    }

    /**
     * The outcome the shared cache found, which this process then remembers too; {@code null} for one another
     * instance encrypted and this one cannot read, which the store then answers.
     */
    <T> @Nullable IdempotentResult<T> sharedReplay(IdempotencyScope scope, Fingerprint fingerprint,
            CachedOutcome outcome, OutcomeCodec<T> codec) {
        if (outcome.response().isSealed()) {
            log.debug("Encrypted outcome in the shared cache, asking the store: operation={} key={}",
                    scope.operation(), scope.key());
            return null;
        }
        IdempotentResult<T> replay = replayCached(scope, fingerprint, outcome, codec, "the shared cache");
        if (replays != null) {
            replays.remember(scope, outcome);
        }
        return replay;
    }

    private static <T> IdempotentResult<T> replayCached(IdempotencyScope scope, Fingerprint fingerprint,
            CachedOutcome outcome, OutcomeCodec<T> codec, String from) {
        if (!fingerprint.matches(outcome.fingerprint())) {
            throw IdempotencyKeyReusedException.of(scope);
        }
        log.debug("Replayed from {}: operation={} key={}", from, scope.operation(), scope.key());
        return new IdempotentResult<>(codec.decode(outcome.response()), true);
    }

    /**
     * Remembers the outcome an attempt here just committed, in this process's memory only if duplicates here wait
     * for it ({@link ReplayCache#markAwaited}): they replay it from memory once the attempt ended, instead of asking
     * the store one after the other. Otherwise nothing keeps it but the store: most keys are never retried. This
     * process's memory keeps outcomes once they were replayed ({@link #rememberReplayed}), since keeping every
     * fresh one for the memory's time to live would keep it alive past the young collections in between, which
     * then copy it (longer pauses) to win the rare replay a single read answers as well.
     *
     * <p>The shared cache learns an outcome from its first replay too, not from its attempt: telling it here would
     * cost every first execution a second round trip to Redis, which cost the service more CPU than the
     * replays it spares the store save (issue 42). The attempt's marker stays until that replay or its time to live
     * ends it, and a duplicate that meets it asks the store whether the attempt has finished. The marker of an
     * attempt that wrote its record once lasts as long as the shared cache would keep its outcome
     * ({@link OutcomeCache#enter}): it keeps retries from running the work again as long as that outcome would.
     */
    void remember(IdempotencyScope scope, Fingerprint fingerprint, StoredResponse response, Instant expiresAt) {
        markers.remove(scope);
        if (replays != null && replays.takeAwaited(scope)) {
            replays.remember(scope, outcome(fingerprint, response, expiresAt));
        }
    }

    /**
     * Remembers a committed outcome that was just replayed, here and in the shared cache: a key retried once is
     * likely retried again (a storm, a client that polls).
     */
    void rememberReplayed(IdempotencyScope scope, Fingerprint fingerprint, StoredResponse response,
            Instant expiresAt) {
        if (replays == null && shared == null) {
            return;
        }
        markers.remove(scope);
        CachedOutcome outcome = outcome(fingerprint, response, expiresAt);
        if (replays != null) {
            replays.remember(scope, outcome);
        }
        if (shared != null) {
            shared.remember(scope, outcome);
        }
    }

    /**
     * An outcome as the caches keep it, with the fingerprint its record holds: the bare digest, not the request's,
     * so that {@link Fingerprint#matches} compares a request with the same recorded value whether the record came
     * from the store or from a cache.
     */
    private static CachedOutcome outcome(Fingerprint fingerprint, StoredResponse response, Instant expiresAt) {
        return new CachedOutcome(Fingerprint.ofDigest(fingerprint.digest()), response, expiresAt);
    }

    /** Returns {@code null} if the record is still running. The record is committed: its outcome is remembered. */
    <T> @Nullable IdempotentResult<T> replayOrWait(IdempotencyScope scope, Fingerprint fingerprint,
            IdempotencyRecord record, OutcomeCodec<T> codec) {
        return replayOrWait(scope, fingerprint, record, codec, true);
    }

    /**
     * The replay of a record read from the store: {@code null} if there is none, if it expired (an expired record is
     * no outcome, whatever is still in the table) or if it still runs.
     */
    <T> @Nullable IdempotentResult<T> replayFound(IdempotencyScope scope, Fingerprint fingerprint,
            Optional<IdempotencyRecord> found, OutcomeCodec<T> codec, Instant now) {
        return replayFound(scope, fingerprint, found, codec, now, true);
    }

    /**
     * @param durable whether a record found is committed, so that its outcome may be remembered: not one read in a
     *     caller's transaction, which sees its own uncommitted records
     */
    <T> @Nullable IdempotentResult<T> replayFound(IdempotencyScope scope, Fingerprint fingerprint,
            Optional<IdempotencyRecord> found, OutcomeCodec<T> codec, Instant now, boolean durable) {
        return found.filter(record -> !record.isExpired(now))
                .map(record -> replayOrWait(scope, fingerprint, record, codec, durable)).orElse(null);
    }

    /**
     * Returns {@code null} if the record is still running.
     *
     * @param durable whether the record is committed, so that its outcome may be remembered: not one that the
     *     caller's own transaction wrote and may still roll back
     */
    <T> @Nullable IdempotentResult<T> replayOrWait(IdempotencyScope scope, Fingerprint fingerprint,
            IdempotencyRecord record, OutcomeCodec<T> codec, boolean durable) {
        if (!fingerprint.matches(record.fingerprint())) {
            log.debug("Key reused with another request: operation={} key={}", scope.operation(), scope.key());
            throw IdempotencyKeyReusedException.of(scope);
        }
        StoredResponse response = record.response();
        if (response == null) {
            return null;
        }
        if (response.isSealed()) {
            throw new IdempotencyStoreException("The stored outcome of operation '" + scope.operation() + "' is "
                    + "encrypted, and this engine's store does not decrypt it: configure encryption on every "
                    + "instance");
        }
        log.debug("Replayed: operation={} key={} attempt={} state={}", scope.operation(), scope.key(),
                record.attempt(), record.state());
        if (durable) {
            rememberReplayed(scope, record.fingerprint(), response, record.expiresAt());
        }
        return new IdempotentResult<>(codec.decode(response), true);
    }
}
