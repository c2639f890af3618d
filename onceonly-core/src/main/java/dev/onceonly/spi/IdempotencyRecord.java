package dev.onceonly.spi;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.StoredResponse;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One stored idempotency record: what a store holds for a scope.
 *
 * @param scope owner, operation and key
 * @param fingerprint the digest of the request that created the record
 * @param state the current state
 * @param attempt the fencing token of the current or last attempt
 * @param leaseExpiresAt until when the current attempt owns the record ({@code null} once finished)
 * @param response the stored response ({@code null} unless {@linkplain RecordState#isTerminal() terminal})
 * @param createdAt when the record was first claimed
 * @param updatedAt when the record last changed
 * @param expiresAt from when the record may be purged and the key counts as new
 */
public record IdempotencyRecord(
        IdempotencyScope scope,
        Fingerprint fingerprint,
        RecordState state,
        int attempt,
        @Nullable Instant leaseExpiresAt,
        @Nullable StoredResponse response,
        Instant createdAt,
        Instant updatedAt,
        Instant expiresAt) {

    public IdempotencyRecord {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(updatedAt, "updatedAt");
        Objects.requireNonNull(expiresAt, "expiresAt");
        if (state.isTerminal() != (response != null)) {
            throw new IllegalArgumentException("a " + state + " record " + (response == null ? "needs" : "has no")
                    + " response");
        }
        if (state == RecordState.PROCESSING && leaseExpiresAt == null) {
            throw new IllegalArgumentException("a PROCESSING record needs a lease");
        }
    }

    /** Whether an attempt is running and its lease has not run out. */
    public boolean isLeaseLive(Instant now) {
        return state == RecordState.PROCESSING && leaseExpiresAt != null && leaseExpiresAt.isAfter(now);
    }

    /** Whether the record has outlived its retention and its key counts as new. */
    public boolean isExpired(Instant now) {
        return !expiresAt.isAfter(now);
    }

    /**
     * Whether a claim for {@code requestFingerprint} may take this record over: it has expired, or it belongs to
     * the same request ({@link Fingerprint#matches}) and failed retryably or lost its lease. Every store applies
     * exactly this rule.
     */
    public boolean isClaimableBy(Fingerprint requestFingerprint, Instant now) {
        if (isExpired(now)) {
            return true;
        }
        if (!requestFingerprint.matches(fingerprint)) {
            return false;
        }
        return state == RecordState.FAILED_RETRYABLE || (state == RecordState.PROCESSING && !isLeaseLive(now));
    }
}
