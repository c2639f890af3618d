package dev.onceonly.client;

import java.time.Duration;

/** What {@link ClientRetryPolicy#decide} tells a client to do after an attempt. */
sealed interface RetryDecision {

    /**
     * Attempt again after waiting.
     *
     * @param delay how long to wait first; the wait ends before the call's deadline
     */
    record Retry(Duration delay) implements RetryDecision {
    }

    /**
     * Make no further attempt; the client hands the last answer (or throws the last failure) to the caller.
     *
     * @param reason why
     */
    record Stop(Reason reason) implements RetryDecision {
    }

    /** Why a call stopped. */
    enum Reason {
        /** The outcome is final for this kind of call: a success, a 4xx such as 422, or any outcome of a call that is never retried. */
        FINAL,
        /** The outcome could be retried, but the policy's maximum number of attempts was made. */
        ATTEMPTS_EXHAUSTED,
        /** The outcome could be retried, but the backoff would end at or past the deadline. */
        DEADLINE_EXHAUSTED,
        /** The server asked (Retry-After) for a wait that ends at or past the deadline. */
        RETRY_AFTER_BEYOND_DEADLINE
    }
}
