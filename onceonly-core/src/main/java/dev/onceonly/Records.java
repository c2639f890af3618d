package dev.onceonly;

import dev.onceonly.OutcomePolicy.Decision;
import dev.onceonly.crypto.EncryptingIdempotencyStore;
import dev.onceonly.internal.ReplayCache;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.Completion;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spi.RecordState;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What both modes do with records: the claim an attempt asks for, the completion it stores, and the replay of a
 * finished record, from the store or from this process's memory. Immutable and thread-safe.
 */
record Records(Duration leaseDuration, Retention retention, @Nullable ReplayCache replays) {

    /** The engine's category, which users configure. */
    private static final Logger log = LoggerFactory.getLogger(IdempotencyEngine.class);

    ClaimRequest claimRequest(IdempotencyScope scope, Fingerprint fingerprint, Instant now, Duration lockWait,
            boolean transactional) {
        Instant leaseExpiresAt = now.plus(leaseDuration);
        return new ClaimRequest(scope, fingerprint, leaseExpiresAt, leaseExpiresAt.plus(retention.succeeded()),
                lockWait, transactional);
    }

    /**
     * The claim of an operation that a worker runs later: no attempt runs yet, so its lease is over at once and the
     * worker's first attempt takes it over.
     */
    ClaimRequest queuedClaimRequest(IdempotencyScope scope, Fingerprint fingerprint, Instant now, Duration lockWait) {
        return new ClaimRequest(scope, fingerprint, now, now.plus(leaseDuration).plus(retention.succeeded()),
                lockWait, true, false);
    }

    /**
     * A success keeps the expiry its claim set (lease end plus retention) while that still covers the retention:
     * completing then changes no indexed column, which lets PostgreSQL update the row in place (HOT).
     */
    Completion completion(Decision decision, StoredResponse response, Instant now, Instant claimExpiresAt) {
        if (decision == Decision.FAILED_FINAL) {
            return new Completion(RecordState.FAILED_FINAL, response, now.plus(retention.failed()));
        }
        Instant retained = now.plus(retention.succeeded());
        return new Completion(RecordState.SUCCEEDED, response, claimExpiresAt.isAfter(retained) ? claimExpiresAt
                : retained);
    }

    /** The outcome this process remembers for {@code scope}, if any. */
    <T> @Nullable IdempotentResult<T> cachedReplay(IdempotencyScope scope, Fingerprint fingerprint,
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
    void remember(IdempotencyScope scope, Fingerprint fingerprint, StoredResponse response, Instant expiresAt) {
        if (replays != null) {
            replays.put(scope, Fingerprint.ofDigest(fingerprint.digest()), response, expiresAt);
        }
    }

    /** Returns {@code null} if the record is still running. */
    <T> @Nullable IdempotentResult<T> replayOrWait(IdempotencyScope scope, Fingerprint fingerprint,
            IdempotencyRecord record, OutcomeCodec<T> codec) {
        if (!fingerprint.matches(record.fingerprint())) {
            log.debug("Key reused with another request: operation={} key={}", scope.operation(), scope.key());
            throw IdempotencyKeyReusedException.of(scope);
        }
        StoredResponse response = record.response();
        if (response == null) {
            return null;
        }
        if (response.headers().containsKey(EncryptingIdempotencyStore.ENCRYPTED_HEADER)) {
            throw new IdempotencyStoreException("The stored outcome of operation '" + scope.operation() + "' is "
                    + "encrypted, and this engine's store does not decrypt it: configure encryption on every "
                    + "instance");
        }
        log.debug("Replayed: operation={} key={} attempt={} state={}", scope.operation(), scope.key(),
                record.attempt(), record.state());
        remember(scope, record.fingerprint(), response, record.expiresAt());
        return new IdempotentResult<>(codec.decode(response), true);
    }
}
