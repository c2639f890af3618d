package dev.onceonly.spi;

import java.time.Instant;
import java.util.Objects;

/**
 * The fencing token of one attempt. Completing or releasing a record only succeeds while the record still
 * carries this token, so a stalled attempt whose lease was taken over cannot overwrite the newer one.
 *
 * <p>The attempt number alone would not do: once a record expires and is purged, a new request with the same key
 * starts again at attempt 1, and a stalled attempt 1 of the purged record would match it. The record's creation
 * time tells the two apart: a record can only be purged after it expired, so its successor is created strictly
 * later. Stores keep {@code createdAt} at a precision they store exactly (microseconds or coarser).
 *
 * @param attempt the attempt number, 1 for the first claim
 * @param createdAt when the record this attempt claimed was created
 */
public record LeaseToken(int attempt, Instant createdAt) {

    public LeaseToken {
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be positive, but is " + attempt);
        }
        Objects.requireNonNull(createdAt, "createdAt");
    }
}
