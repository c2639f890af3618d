package dev.onceonly.client;

import java.io.IOException;

import org.jspecify.annotations.Nullable;

/** What one attempt of a call ended with: an answer from the server, or an I/O failure before one arrived. */
sealed interface AttemptOutcome {

    /**
     * The server answered.
     *
     * @param status the HTTP status code
     * @param retryAfter the raw {@code Retry-After} value, if the server sent one
     */
    record Answered(int status, @Nullable String retryAfter) implements AttemptOutcome {
    }

    /**
     * No answer: connection refused or dropped, or a timeout. The server may or may not have acted on the request.
     *
     * @param exception what the HTTP client threw
     */
    record Failed(IOException exception) implements AttemptOutcome {
    }
}
