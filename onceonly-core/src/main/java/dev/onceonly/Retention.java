package dev.onceonly;

import java.time.Duration;
import java.util.Objects;

/**
 * How long records are kept before they may be purged and their keys count as new.
 *
 * @param succeeded for records that succeeded, counted from the end of their claim's lease (so a success is
 *     kept up to one lease longer than this; completing it then changes no indexed column)
 * @param failed for records that failed, finally or retryably
 */
public record Retention(Duration succeeded, Duration failed) {

    /** The longest retention accepted: ten years keeps every computed time far inside what stores hold. */
    public static final Duration MAX = Duration.ofDays(3650);

    /** {@value IdempotencyDefaults#RETENTION} for every record, as Stripe keeps keys. */
    public static final Retention DEFAULT = new Retention(Duration.parse(IdempotencyDefaults.RETENTION),
            Duration.parse(IdempotencyDefaults.RETENTION));

    public Retention {
        requirePositive("retention.succeeded", succeeded);
        requirePositive("retention.failed", failed);
    }

    private static void requirePositive(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero() || value.compareTo(MAX) > 0) {
            throw IdempotencyConfigurationException.of(name, "must be positive and at most " + MAX + ", but is "
                    + value);
        }
    }
}
