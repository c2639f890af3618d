package dev.onceonly;

import java.time.Duration;
import java.util.Objects;

/**
 * How often and how soon a leased record that failed retryably may run again: a failed attempt leaves the record
 * FAILED_RETRYABLE, claimable from a backoff later; the attempt that fails for the {@code maxAttempts}-th time
 * ends it FAILED_FINAL with its last problem, replayed from then on like any final outcome (the record is
 * "dead"). Attempts whose lease ran out without an outcome (a crash) are taken over without counting as failures.
 *
 * <p>The backoff doubles from {@code initialBackoff} with each failure, up to {@code maxBackoff}. A retry that
 * comes before it passes is told to come back then ({@link RequestInProgressException#retryAfter()}).
 * Transactional mode rolls a failed attempt back instead, so that nothing is stored and nothing counted.
 *
 * @param maxAttempts attempts that may fail before the record ends final, at least 1
 * @param initialBackoff the backoff after the first failure; zero for none
 * @param maxBackoff the longest backoff, at least {@code initialBackoff}
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {

    /** Ten attempts, each retry allowed at once: what an HTTP client expects that retries on its own schedule. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(IdempotencyDefaults.MAX_ATTEMPTS, Duration.ZERO,
            Duration.ZERO);

    public RetryPolicy {
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        if (maxAttempts < 1) {
            throw IdempotencyConfigurationException.of("maxAttempts", "must be at least 1, but is " + maxAttempts);
        }
        if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0) {
            throw IdempotencyConfigurationException.of("backoff", "must be 0 or more, and the largest at least the "
                    + "initial, but are " + initialBackoff + " and " + maxBackoff);
        }
    }

    /** Whether an attempt that fails after {@code earlierFailures} failed ones ends the record final. */
    public boolean isLastAttempt(int earlierFailures) {
        return earlierFailures + 1 >= maxAttempts;
    }

    /** The backoff after the {@code failures}-th failure (1 for the first). */
    public Duration backoffAfter(int failures) {
        if (initialBackoff.isZero() || failures < 1) {
            return Duration.ZERO;
        }
        int doublings = Math.min(failures - 1, 30);
        Duration backoff = initialBackoff.multipliedBy(1L << doublings);
        return backoff.compareTo(maxBackoff) > 0 ? maxBackoff : backoff;
    }
}
