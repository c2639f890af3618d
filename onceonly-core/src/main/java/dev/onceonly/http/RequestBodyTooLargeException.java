package dev.onceonly.http;

import dev.onceonly.IdempotencyException;

/** The body of a request to an idempotent endpoint exceeds {@code onceonly.http.max-request-body}: 413. */
public final class RequestBodyTooLargeException extends IdempotencyException {

    private RequestBodyTooLargeException(long limit) {
        super("The request body is larger than the " + limit + " bytes an idempotent endpoint accepts", false);
    }

    public static RequestBodyTooLargeException of(long limit) {
        return new RequestBodyTooLargeException(limit);
    }

    @Override
    public String problemType() {
        return "request-body-too-large";
    }
}
