package dev.onceonly.http;

import dev.onceonly.IdempotencyException;

/**
 * The handler wrote more than {@code onceonly.http.max-buffered-response}: the response cannot be held back until
 * the outcome is settled, so the attempt fails (rolled back, or released for a retry) and the client gets 500.
 */
public final class ResponseTooLargeException extends IdempotencyException {

    private ResponseTooLargeException(long bound) {
        super("The response is larger than the " + bound + " bytes an idempotent response may hold; it was "
                + "neither sent nor stored", false);
    }

    public static ResponseTooLargeException of(long bound) {
        return new ResponseTooLargeException(bound);
    }

    @Override
    public String problemType() {
        return "response-too-large";
    }
}
