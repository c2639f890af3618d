package dev.onceonly;

import java.util.Objects;

/**
 * A validated idempotency key: the client's name for one logical request.
 *
 * <p>Obtain one through {@link IdempotencyKeyFormat#parse(String)} (a header value in bare or Structured Field
 * String form) or {@link #of(String)} (the default format). A key is not a secret, but it is client input: it is
 * only ever created after validation.
 *
 * @param value the key as the client chose it, without quotes
 */
public record IdempotencyKey(String value) {

    /** The longest key any format accepts; it matches the width of the stores' key column. */
    public static final int MAX_LENGTH = 255;

    /**
     * @throws InvalidIdempotencyKeyException unless {@code value} has 1 to 255 characters and no control
     *     characters: the limits every store and log line relies on, whatever the {@link IdempotencyKeyFormat}
     */
    public IdempotencyKey {
        Objects.requireNonNull(value, "value");
        if (value.isEmpty()) {
            throw InvalidIdempotencyKeyException.of(InvalidIdempotencyKeyException.Violation.MISSING,
                    "The Idempotency-Key is empty");
        }
        if (value.length() > MAX_LENGTH) {
            throw InvalidIdempotencyKeyException.of(InvalidIdempotencyKeyException.Violation.TOO_LONG,
                    "The Idempotency-Key is " + value.length() + " characters long; at most " + MAX_LENGTH
                            + " are allowed");
        }
        for (int i = 0; i < value.length(); i++) {
            if (Character.isISOControl(value.charAt(i))) {
                throw InvalidIdempotencyKeyException.of(InvalidIdempotencyKeyException.Violation.ILLEGAL_CHARACTER,
                        "The Idempotency-Key has a control character at position " + (i + 1));
            }
        }
    }

    /**
     * Validates {@code value} against {@link IdempotencyKeyFormat#DEFAULT}.
     *
     * @throws InvalidIdempotencyKeyException naming the rule {@code value} breaks
     */
    public static IdempotencyKey of(String value) {
        return IdempotencyKeyFormat.DEFAULT.validate(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
