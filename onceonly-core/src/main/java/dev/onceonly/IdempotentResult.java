package dev.onceonly;

/**
 * What {@link IdempotencyEngine#execute} returns.
 *
 * @param value the result: freshly computed, or decoded from the stored response of an earlier attempt
 * @param replayed {@code true} if the work did not run and {@code value} is the earlier attempt's result
 * @param <T> the result type
 */
public record IdempotentResult<T>(T value, boolean replayed) {
}
