package dev.onceonly;

/**
 * Turns the work's result into the {@link StoredResponse} that is stored and replayed, and back. The encoded
 * status is what the {@link OutcomePolicy} classifies. Implementations must be thread-safe.
 *
 * @param <T> the result type
 */
public interface OutcomeCodec<T> {

    StoredResponse encode(T result);

    T decode(StoredResponse stored);

    /** For callers whose result already is a {@link StoredResponse}, such as an HTTP layer. */
    static OutcomeCodec<StoredResponse> identity() {
        return new OutcomeCodec<>() {
            @Override
            public StoredResponse encode(StoredResponse result) {
                return result;
            }

            @Override
            public StoredResponse decode(StoredResponse stored) {
                return stored;
            }
        };
    }
}
