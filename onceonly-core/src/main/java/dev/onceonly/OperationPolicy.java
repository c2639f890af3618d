package dev.onceonly;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What one operation (an endpoint, a method, a consumer) sets apart from its engine: its mode, how long its
 * duplicates wait, how long its outcomes are kept, which results it stores, its lease and its retries. A part left
 * null is the engine's. An immutable value, checked by the engine builder's rules when made;
 * {@link IdempotencyEngine#forOperation} runs an operation by it on the engine's store, memory and heartbeats.
 *
 * @param mode how the operation's work runs; {@link IdempotencyMode#AUTO} is not a choice here
 * @param waitTimeout how long a duplicate waits for the operation's running attempt (0 to 10 minutes)
 * @param retention how long the operation's outcomes are kept
 * @param outcomePolicy which of the operation's results are stored, final or retryable
 * @param leaseDuration how long a leased attempt owns its record (at most 1 day)
 * @param retryPolicy how often and how soon a leased record that failed retryably runs again
 */
public record OperationPolicy(@Nullable IdempotencyMode mode, @Nullable Duration waitTimeout,
        @Nullable Retention retention, @Nullable OutcomePolicy outcomePolicy, @Nullable Duration leaseDuration,
        @Nullable RetryPolicy retryPolicy) {

    /** Everything as the engine has it. */
    public static final OperationPolicy ENGINE_DEFAULTS = new OperationPolicy(null, null, null, null, null, null);

    /** @throws IdempotencyConfigurationException naming the part that breaks the engine builder's rules */
    public OperationPolicy {
        if (mode == IdempotencyMode.AUTO) {
            throw IdempotencyConfigurationException.of("mode", "auto is the engine's choice, not an operation's",
                    "Leave the mode unset to run as the engine does");
        }
        if (waitTimeout != null) {
            IdempotencyEngineBuilder.checkedWaitTimeout(waitTimeout);
        }
        if (leaseDuration != null) {
            IdempotencyEngineBuilder.checkedLeaseDuration(leaseDuration);
        }
    }

    public OperationPolicy withMode(IdempotencyMode mode) {
        return new OperationPolicy(Objects.requireNonNull(mode, "mode"), waitTimeout, retention, outcomePolicy,
                leaseDuration, retryPolicy);
    }

    public OperationPolicy withWaitTimeout(Duration waitTimeout) {
        return new OperationPolicy(mode, Objects.requireNonNull(waitTimeout, "waitTimeout"), retention,
                outcomePolicy, leaseDuration, retryPolicy);
    }

    public OperationPolicy withRetention(Retention retention) {
        return new OperationPolicy(mode, waitTimeout, Objects.requireNonNull(retention, "retention"), outcomePolicy,
                leaseDuration, retryPolicy);
    }

    public OperationPolicy withOutcomePolicy(OutcomePolicy outcomePolicy) {
        return new OperationPolicy(mode, waitTimeout, retention, Objects.requireNonNull(outcomePolicy,
                "outcomePolicy"), leaseDuration, retryPolicy);
    }

    public OperationPolicy withLeaseDuration(Duration leaseDuration) {
        return new OperationPolicy(mode, waitTimeout, retention, outcomePolicy, Objects.requireNonNull(leaseDuration,
                "leaseDuration"), retryPolicy);
    }

    public OperationPolicy withRetryPolicy(RetryPolicy retryPolicy) {
        return new OperationPolicy(mode, waitTimeout, retention, outcomePolicy, leaseDuration,
                Objects.requireNonNull(retryPolicy, "retryPolicy"));
    }

    /** Sets the parts this policy has on {@code settings}, a copy of an engine's. */
    void applyTo(IdempotencyEngineBuilder settings) {
        if (mode != null) {
            settings.mode = mode;
        }
        if (waitTimeout != null) {
            settings.waitTimeout = waitTimeout;
        }
        if (retention != null) {
            settings.retention = retention;
        }
        if (outcomePolicy != null) {
            settings.outcomePolicy = outcomePolicy;
        }
        if (leaseDuration != null) {
            settings.leaseDuration = leaseDuration;
        }
        if (retryPolicy != null) {
            settings.retryPolicy = retryPolicy;
        }
    }
}
