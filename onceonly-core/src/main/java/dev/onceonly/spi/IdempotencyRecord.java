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
 * @param attempt the number of the current or last attempt, part of its fencing token
 * @param failures how many attempts failed retryably so far; past the engine's maximum the record ends
 *     FAILED_FINAL
 * @param leaseExpiresAt until when the current attempt owns the record ({@code null} unless PROCESSING)
 * @param nextAttemptAt the earliest time a FAILED_RETRYABLE record may run again (its backoff); {@code null}
 *     otherwise
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
        int failures,
        @Nullable Instant leaseExpiresAt,
        @Nullable Instant nextAttemptAt,
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
        if (attempt < 1 || failures < 0) {
            throw new IllegalArgumentException("attempt must be positive and failures not negative, but are "
                    + attempt + " and " + failures);
        }
    }

    /** This record with another response, for a store decorator that transforms stored responses. */
    public IdempotencyRecord withResponse(@Nullable StoredResponse newResponse) {
        return new IdempotencyRecord(scope, fingerprint, state, attempt, failures, leaseExpiresAt, nextAttemptAt,
                newResponse, createdAt, updatedAt, expiresAt);
    }

    /** The fencing token of the current or last attempt. */
    public LeaseToken token() {
        return new LeaseToken(attempt, createdAt);
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
     * the same request ({@link Fingerprint#matches}) and failed retryably with its backoff passed, or lost its
     * lease. Every store applies exactly this rule.
     */
    public boolean isClaimableBy(Fingerprint requestFingerprint, Instant now) {
        if (isExpired(now)) {
            return true;
        }
        if (!requestFingerprint.matches(fingerprint)) {
            return false;
        }
        return switch (state) {
            case FAILED_RETRYABLE -> nextAttemptAt == null || !nextAttemptAt.isAfter(now);
            case PROCESSING -> !isLeaseLive(now);
            case SUCCEEDED, FAILED_FINAL -> false;
        };
    }
}
