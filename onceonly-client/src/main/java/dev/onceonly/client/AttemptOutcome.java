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
     * @param replayed whether the server marked the answer {@code Idempotent-Replayed: true}: the stored answer of
     *     the key's first request
     */
    record Answered(int status, @Nullable String retryAfter, boolean replayed) implements AttemptOutcome {
    }

    /**
     * No answer: connection refused or dropped, or a timeout. The server may or may not have acted on the request.
     *
     * @param exception what the HTTP client threw
     */
    record Failed(IOException exception) implements AttemptOutcome {
    }
}
