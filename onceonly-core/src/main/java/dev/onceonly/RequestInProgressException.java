package dev.onceonly;

import java.time.Duration;

/**
 * The first request with this key is still being processed and did not finish within the configured wait.
 * The caller should retry after {@link #retryAfter()}. Carries no stack trace: it is an expected answer.
 */
public final class RequestInProgressException extends IdempotencyException {

    private final IdempotencyScope scope;
    private final Duration retryAfter;

    private RequestInProgressException(IdempotencyScope scope, Duration retryAfter) {
        // Names no key, as IdempotencyKeyReusedException explains.
        super("A request with this idempotency key of operation '" + scope.operation() + "' is still in progress",
                false);
        this.scope = scope;
        this.retryAfter = retryAfter;
    }

    public static RequestInProgressException of(IdempotencyScope scope, Duration retryAfter) {
        return new RequestInProgressException(scope, retryAfter);
    }

    /** The scope with its key as the engine stores it: the digest when only {@link KeyStorage digests} are kept. */
    public IdempotencyScope scope() {
        return scope;
    }

    /** How long the caller should wait before retrying. */
    public Duration retryAfter() {
        return retryAfter;
    }

    @Override
    public String problemType() {
        return "request-in-progress";
    }
}
