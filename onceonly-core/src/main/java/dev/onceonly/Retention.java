package dev.onceonly;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How long records are kept before they may be purged and their keys count as new.
 *
 * @param succeeded for records that succeeded
 * @param failed for records that failed, finally or retryably (a retryable failure counted from its next attempt)
 * @param abandoned for records whose attempt never ended (its process died, and no retry of the key came), counted
 *     from the end of the lease it had when it was claimed, and never shorter than its last lease; {@code null}:
 *     the same as {@code succeeded}, which lets a success keep the expiry its claim set, so that completing the
 *     record changes no indexed column
 */
public record Retention(Duration succeeded, Duration failed, @Nullable Duration abandoned) {

    /** The longest retention accepted: ten years keeps every computed time far inside what stores hold. */
    public static final Duration MAX = Duration.ofDays(3650);

    /** {@value IdempotencyDefaults#RETENTION} for every record, as Stripe keeps keys. */
    public static final Retention DEFAULT = new Retention(Duration.parse(IdempotencyDefaults.RETENTION),
            Duration.parse(IdempotencyDefaults.RETENTION));

    public Retention {
        requirePositive("retention.succeeded", succeeded);
        requirePositive("retention.failed", failed);
        if (abandoned != null) {
            requirePositive("retention.abandoned", abandoned);
        }
    }

    /** Abandoned records kept as long as successes. */
    public Retention(Duration succeeded, Duration failed) {
        this(succeeded, failed, null);
    }

    /** How long an abandoned record is kept: {@link #abandoned()}, or {@link #succeeded()} where that is null. */
    public Duration abandonedOrSucceeded() {
        return abandoned != null ? abandoned : succeeded;
    }

    /**
     * This retention with the values {@code override} sets: for an endpoint or listener that keeps its records
     * longer or shorter than the engine. An abandoned retention left unset follows the succeeded one.
     */
    public Retention overriddenBy(@Nullable Duration succeeded, @Nullable Duration failed,
            @Nullable Duration abandoned) {
        return new Retention(Objects.requireNonNullElse(succeeded, this.succeeded),
                Objects.requireNonNullElse(failed, this.failed),
                abandoned != null ? abandoned : succeeded != null ? null : this.abandoned);
    }

    private static void requirePositive(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero() || value.compareTo(MAX) > 0) {
            throw IdempotencyConfigurationException.of(name, "must be positive and at most " + MAX + ", but is "
                    + value);
        }
    }
}
