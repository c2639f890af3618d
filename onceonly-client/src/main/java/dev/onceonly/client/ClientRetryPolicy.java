package dev.onceonly.client;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * When and how long a client waits before repeating a call; shared by {@link RetryingHttpClient} and
 * {@link IdempotencyKeyInterceptor}.
 *
 * <p>What is repeated: connection failures and timeouts (any {@link java.io.IOException}), 429, 500, 502, 503 and
 * 504, and, for calls that carry an {@code Idempotency-Key}, a 409 with {@code Retry-After} that is not a replay (the
 * first request with that key is still running), never a 409 that is the first request's business answer. Never 422 or any other 4xx, and never a call that is neither keyed nor idempotent by its method.
 *
 * <p>How long it waits: the server's {@code Retry-After} (seconds or HTTP-date) when it sent one, else full-jitter
 * exponential backoff, a uniformly random wait between zero and
 * {@code min(maxBackoff, initialBackoff * multiplier^(attempt - 1))}. Full jitter spreads the retries of many clients
 * that failed together. A call stops after {@code maxAttempts} attempts, or when the next wait would end at or past
 * its {@code deadline} (measured from its first attempt); the policy never sleeps past the deadline, and a
 * {@code Retry-After} beyond it ends the call with the answer that asked for it. The deadline bounds when attempts
 * start; an attempt already sent is bounded by the HTTP client's own timeouts.
 *
 * <p>Immutable and thread safe; build one with {@link #builder()} and share it.
 */
public final class ClientRetryPolicy {

    private final Duration initialBackoff;
    private final double multiplier;
    private final Duration maxBackoff;
    private final int maxAttempts;
    private final Duration deadline;
    private final Sleeper sleeper;
    private final Clock clock;

    private ClientRetryPolicy(Builder builder) {
        this.initialBackoff = builder.initialBackoff;
        this.multiplier = builder.multiplier;
        this.maxBackoff = builder.maxBackoff;
        this.maxAttempts = builder.maxAttempts;
        this.deadline = builder.deadline;
        this.sleeper = builder.sleeper;
        this.clock = builder.clock;
    }

    /**
     * A builder with the defaults: initial backoff 100 ms, multiplier 2, maximum backoff 2 s, 5 attempts, a 10 s
     * deadline, {@link Sleeper#threadSleep()} and the system clock.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the cap on the first backoff */
    public Duration initialBackoff() {
        return initialBackoff;
    }

    /** @return the factor by which the cap grows per attempt */
    public double multiplier() {
        return multiplier;
    }

    /** @return the largest cap on a backoff */
    public Duration maxBackoff() {
        return maxBackoff;
    }

    /** @return the most attempts one call makes, the first included */
    public int maxAttempts() {
        return maxAttempts;
    }

    /** @return how long after its first attempt a call may still wait for another */
    public Duration deadline() {
        return deadline;
    }

    Sleeper sleeper() {
        return sleeper;
    }

    Clock clock() {
        return clock;
    }

    /**
     * The decision after attempt number {@code attemptsMade} of a call of the given kind.
     *
     * @param remaining the time left until the call's deadline (zero or negative once it passed)
     * @param now the current time, to read a {@code Retry-After} date against
     */
    RetryDecision decide(CallKind kind, int attemptsMade, AttemptOutcome outcome, Duration remaining, Instant now) {
        if (!kind.mayRetry(outcome)) {
            return new RetryDecision.Stop(RetryDecision.Reason.FINAL);
        }
        if (attemptsMade >= maxAttempts) {
            return new RetryDecision.Stop(RetryDecision.Reason.ATTEMPTS_EXHAUSTED);
        }
        Optional<Duration> asked = outcome instanceof AttemptOutcome.Answered answered && answered.retryAfter() != null
                ? RetryAfter.parse(answered.retryAfter(), now)
                : Optional.empty();
        if (asked.isPresent()) {
            return asked.get().compareTo(remaining) >= 0
                    ? new RetryDecision.Stop(RetryDecision.Reason.RETRY_AFTER_BEYOND_DEADLINE)
                    : new RetryDecision.Retry(asked.get());
        }
        Duration backoff = backoff(attemptsMade);
        return backoff.compareTo(remaining) >= 0
                ? new RetryDecision.Stop(RetryDecision.Reason.DEADLINE_EXHAUSTED)
                : new RetryDecision.Retry(backoff);
    }

    /** Full jitter: uniform in [0, cap], the cap growing from the initial backoff to the maximum. */
    Duration backoff(int attemptsMade) {
        double grown = initialBackoff.toNanos() * Math.pow(multiplier, attemptsMade - 1);
        long cap = (long) Math.min(maxBackoff.toNanos(), grown);
        return Duration.ofNanos(ThreadLocalRandom.current().nextLong(cap + 1));
    }

    /** Builds a {@link ClientRetryPolicy}; every setting is checked when set, so a bad one fails where it is written. */
    public static final class Builder {

        private Duration initialBackoff = Duration.ofMillis(100);
        private double multiplier = 2.0;
        private Duration maxBackoff = Duration.ofSeconds(2);
        private int maxAttempts = 5;
        private Duration deadline = Duration.ofSeconds(10);
        private Sleeper sleeper = Sleeper.threadSleep();
        private Clock clock = Clock.systemUTC();

        private Builder() {
        }

        /**
         * @param initialBackoff the cap on the first backoff, positive
         * @return this builder
         */
        public Builder initialBackoff(Duration initialBackoff) {
            this.initialBackoff = positive(initialBackoff, "initialBackoff");
            return this;
        }

        /**
         * @param multiplier the factor by which the cap grows per attempt, at least 1
         * @return this builder
         */
        public Builder multiplier(double multiplier) {
            if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
                throw new IllegalArgumentException("multiplier must be a finite number >= 1, was " + multiplier);
            }
            this.multiplier = multiplier;
            return this;
        }

        /**
         * @param maxBackoff the largest cap on a backoff, positive and not below the initial backoff
         * @return this builder
         */
        public Builder maxBackoff(Duration maxBackoff) {
            this.maxBackoff = positive(maxBackoff, "maxBackoff");
            return this;
        }

        /**
         * @param maxAttempts the most attempts one call makes, the first included; 1 turns retries off
         * @return this builder
         */
        public Builder maxAttempts(int maxAttempts) {
            if (maxAttempts < 1) {
                throw new IllegalArgumentException("maxAttempts must be >= 1, was " + maxAttempts);
            }
            this.maxAttempts = maxAttempts;
            return this;
        }

        /**
         * @param deadline how long after its first attempt a call may still wait for another, positive
         * @return this builder
         */
        public Builder deadline(Duration deadline) {
            this.deadline = positive(deadline, "deadline");
            return this;
        }

        /**
         * @param sleeper how to wait between attempts
         * @return this builder
         */
        public Builder sleeper(Sleeper sleeper) {
            this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
            return this;
        }

        /**
         * @param clock the time source for deadlines and {@code Retry-After} dates
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * @return the policy
         * @throws IllegalArgumentException if the maximum backoff is below the initial one
         */
        public ClientRetryPolicy build() {
            if (maxBackoff.compareTo(initialBackoff) < 0) {
                throw new IllegalArgumentException(
                        "maxBackoff (" + maxBackoff + ") must not be below initialBackoff (" + initialBackoff + ")");
            }
            return new ClientRetryPolicy(this);
        }

        private static Duration positive(Duration value, String name) {
            Objects.requireNonNull(value, name);
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, was " + value);
            }
            return value;
        }
    }
}
