package dev.onceonly.spi;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyScope;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * What an attempt asks of {@link IdempotencyStore#claim}.
 *
 * @param scope owner, operation and key
 * @param fingerprint the digest of this request
 * @param leaseExpiresAt until when the claiming attempt owns the record
 * @param expiresAt from when the record may be purged (at or after {@code leaseExpiresAt})
 * @param lockWait how long a store may block on a claim held by another, uncommitted transaction before it
 *     answers {@link ClaimResult.Locked}; stores that never block ignore it, and a store whose database bounds
 *     every lock a statement waits for, not only the key's, may wait a little longer (the JDBC store waits
 *     128 ms at least), so that a fresh key is not refused for a lock that is not its own
 * @param transactional {@code true} if the caller runs a transaction that the claim must join (transactional
 *     mode); {@code false} if the claim must commit on its own (leased mode). A store that cannot do what is asked
 *     throws {@link dev.onceonly.IdempotencyConfigurationException} rather than silently doing the other.
 * @param takeOver whether the claim may take over a record of the same request that failed retryably or whose
 *     lease ran out; {@code false} for the submission of an asynchronous operation, whose duplicates must leave
 *     the record to its worker. An expired record is replaced either way.
 */
public record ClaimRequest(IdempotencyScope scope, Fingerprint fingerprint, Instant leaseExpiresAt,
        Instant expiresAt, Duration lockWait, boolean transactional, boolean takeOver) {

    /** A claim that may take over, as every attempt's does. */
    public ClaimRequest(IdempotencyScope scope, Fingerprint fingerprint, Instant leaseExpiresAt, Instant expiresAt,
            Duration lockWait, boolean transactional) {
        this(scope, fingerprint, leaseExpiresAt, expiresAt, lockWait, transactional, true);
    }

    /** Whether this claim may take {@code existing} over: the store's rule plus this claim's own. */
    public boolean mayClaim(IdempotencyRecord existing, Instant now) {
        return existing.isClaimableBy(fingerprint, now) && (takeOver || existing.isExpired(now));
    }

    public ClaimRequest {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(leaseExpiresAt, "leaseExpiresAt");
        Objects.requireNonNull(expiresAt, "expiresAt");
        Objects.requireNonNull(lockWait, "lockWait");
        if (expiresAt.isBefore(leaseExpiresAt)) {
            throw new IllegalArgumentException("expiresAt must not be before leaseExpiresAt");
        }
        if (lockWait.isNegative()) {
            throw new IllegalArgumentException("lockWait must not be negative");
        }
    }
}
