package dev.onceonly.client;

import org.jspecify.annotations.Nullable;

/**
 * The answer to one logical call and how it came about.
 *
 * @param response the last answer the server gave; a superseded one is closed, never returned
 * @param key the {@code Idempotency-Key} sent on every attempt, or {@code null} when the call carried none
 *     (an idempotent method such as GET)
 * @param attempts how many attempts were made, the first included
 * @param replayed whether the server answered with a stored response ({@code Idempotent-Replayed: true}): the
 *     effect had already happened, typically in an attempt whose answer was lost
 * @param <R> the HTTP client's response type
 */
public record CallResult<R>(R response, @Nullable String key, int attempts, boolean replayed) {
}
