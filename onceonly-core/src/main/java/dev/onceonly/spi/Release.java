package dev.onceonly.spi;

import java.time.Instant;
import java.util.Objects;

/**
 * How an attempt that failed retryably leaves its record, for {@link IdempotencyStore#release}: FAILED_RETRYABLE,
 * its failure count one higher, claimable again from {@code nextAttemptAt}.
 *
 * @param nextAttemptAt the earliest time another attempt may take the record over (now, for no backoff)
 * @param expiresAt from when the record may be purged (after {@code nextAttemptAt})
 */
public record Release(Instant nextAttemptAt, Instant expiresAt) {

    public Release {
        Objects.requireNonNull(nextAttemptAt, "nextAttemptAt");
        Objects.requireNonNull(expiresAt, "expiresAt");
        if (expiresAt.isBefore(nextAttemptAt)) {
            throw new IllegalArgumentException("expiresAt must not be before nextAttemptAt");
        }
    }
}
