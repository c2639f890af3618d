package dev.onceonly.spring.async;

import dev.onceonly.Attempt;
import dev.onceonly.StoredResponse;

/**
 * The work of one asynchronous operation, registered as a bean and run by a worker for every accepted request of
 * its {@link #name()}: after a crash or a retryable failure, again, on any instance. Pass
 * {@link Attempt#downstreamKey(String)} to the systems it calls, so that a repeated attempt does not repeat
 * their effect.
 *
 * <p>The response it returns is classified like any other outcome (the engine's
 * {@link dev.onceonly.OutcomePolicy}): a success or a final rejection is stored and answered from then on; a
 * retryable one (5xx, 429) is tried again after the backoff, until the lease settings' maximum of attempts.
 *
 * @param <P> what a request hands its worker: a small record with ids, not a copy of the whole request. It is
 *     stored as plain JSON in the task table until the operation finished, also when responses are encrypted at
 *     rest: keep personal data and secrets out of it, and let the worker load them by id
 */
public interface AsynchronousOperation<P> {

    /** The operation's name: the {@code operation} of the scopes submitted for it. */
    String name();

    /** The payload's type, for reading it back as JSON. */
    Class<P> payloadType();

    /**
     * Runs one attempt.
     *
     * @return the outcome, as stored and answered to duplicates and the status resource
     * @throws Exception a failure the next attempt may not repeat; counted as a retryable failure
     */
    StoredResponse run(Attempt attempt, P payload) throws Exception;
}
