package dev.onceonly;

import java.util.Objects;
import java.util.function.Function;

/**
 * Turns the work's result into the {@link StoredResponse} that is stored and replayed, and back. The encoded
 * status is what the {@link OutcomePolicy} classifies. Implementations must be thread-safe.
 *
 * @param <T> the result type
 */
public interface OutcomeCodec<T> {

    /** The response to store for a fresh result; never {@code null}. */
    StoredResponse encode(T result);

    /** The result a replay returns, rebuilt from what {@link #encode} stored. */
    T decode(StoredResponse stored);

    /**
     * A codec made of two functions, such as {@code OutcomeCodec.of(order -> StoredResponse.of(201,
     * order.json()), stored -> Order.parse(stored.body()))}. The functions must be thread-safe.
     *
     * @param encode what {@link #encode} does; must not return {@code null}
     * @param decode what {@link #decode} does
     */
    static <T> OutcomeCodec<T> of(Function<? super T, StoredResponse> encode,
            Function<? super StoredResponse, ? extends T> decode) {
        Objects.requireNonNull(encode, "encode");
        Objects.requireNonNull(decode, "decode");
        return new OutcomeCodec<>() {
            @Override
            public StoredResponse encode(T result) {
                return Objects.requireNonNull(encode.apply(result), "the codec's encode function returned null");
            }

            @Override
            public T decode(StoredResponse stored) {
                return decode.apply(stored);
            }
        };
    }

    /** For callers whose result already is a {@link StoredResponse}, such as an HTTP layer. */
    static OutcomeCodec<StoredResponse> identity() {
        return of(Function.identity(), Function.identity());
    }
}
