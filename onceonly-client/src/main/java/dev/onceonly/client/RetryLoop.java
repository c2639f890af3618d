package dev.onceonly.client;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The attempt loop both clients share; each adapts its HTTP client through {@link Attempt} and {@link Responses}.
 *
 * <p>How it works:
 * <ol>
 *   <li>The deadline is fixed before the first attempt: the policy's clock plus its deadline.</li>
 *   <li>Each attempt ends as an answer or an {@link IOException}. An I/O failure while the thread is interrupted
 *       (the HTTP clients turn an interrupt into one) ends the call at once as an {@link InterruptedIOException}.</li>
 *   <li>The policy decides. On {@code Stop} the last answer is returned, or the last failure thrown with the earlier
 *       failures suppressed in it. On {@code Retry} a superseded answer is closed, then the loop sleeps and goes
 *       again; the request, and so its key, is the same object on every attempt.</li>
 * </ol>
 */
final class RetryLoop {

    /** One attempt: sends the request once. */
    @FunctionalInterface
    interface Attempt<R> {
        R execute() throws IOException;
    }

    /** What the loop needs to know of, and do with, a client's response type. */
    interface Responses<R> {
        int status(R response) throws IOException;

        @Nullable String retryAfter(R response);

        /** Whether the response is marked {@code Idempotent-Replayed: true}. */
        boolean replayed(R response);

        /** Releases a response that a retry supersedes. */
        void discard(R response) throws IOException;
    }

    /** The answer a call ended with and how many attempts it took. */
    record Finished<R>(R response, int attempts) {
    }

    private final ClientRetryPolicy policy;

    RetryLoop(ClientRetryPolicy policy) {
        this.policy = policy;
    }

    <R> Finished<R> run(CallKind kind, Attempt<R> attempt, Responses<R> responses) throws IOException {
        Instant deadline = policy.clock().instant().plus(policy.deadline());
        List<IOException> failures = new ArrayList<>();
        for (int attempts = 1; ; attempts++) {
            R response = null;
            AttemptOutcome outcome;
            try {
                response = attempt.execute();
                outcome = new AttemptOutcome.Answered(responses.status(response), responses.retryAfter(response),
                        responses.replayed(response));
            } catch (IOException failure) {
                if (response != null) {
                    // Answered, but its status could not be read: as good as no answer.
                    responses.discard(response);
                    response = null;
                }
                if (Thread.currentThread().isInterrupted()) {
                    throw interrupted(failure, failures);
                }
                failures.add(failure);
                outcome = new AttemptOutcome.Failed(failure);
            }
            Instant now = policy.clock().instant();
            RetryDecision decision = policy.decide(kind, attempts, outcome, Duration.between(now, deadline), now);
            if (decision instanceof RetryDecision.Retry(Duration delay)) {
                if (response != null) {
                    responses.discard(response);
                }
                sleep(delay, failures);
            } else if (response != null) {
                return new Finished<>(response, attempts);
            } else {
                throw lastWithEarlierSuppressed(failures);
            }
        }
    }

    private void sleep(Duration delay, List<IOException> failures) throws InterruptedIOException {
        try {
            policy.sleeper().sleep(delay);
        } catch (InterruptedException interrupt) {
            Thread.currentThread().interrupt();
            throw interrupted(interrupt, failures);
        }
    }

    private static InterruptedIOException interrupted(Exception cause, List<IOException> failures) {
        InterruptedIOException interrupted = new InterruptedIOException("Interrupted; no further attempt is made");
        interrupted.initCause(cause);
        failures.forEach(interrupted::addSuppressed);
        return interrupted;
    }

    private static IOException lastWithEarlierSuppressed(List<IOException> failures) {
        IOException last = failures.getLast();
        failures.subList(0, failures.size() - 1).forEach(last::addSuppressed);
        return last;
    }
}
