package dev.onceonly;

/**
 * An {@code Idempotency-Key} is missing or breaks the key format. {@link #violation()} names the rule broken.
 */
public final class InvalidIdempotencyKeyException extends IdempotencyException {

    /** The rule an idempotency key broke. */
    public enum Violation {
        /** No key where one is required. */
        MISSING,
        /** More than one key value was sent. */
        MULTIPLE_VALUES,
        /** A quoted (Structured Field String) key is not well formed. */
        MALFORMED_STRING,
        /** Fewer characters than the format's minimum. */
        TOO_SHORT,
        /** More characters than the format's maximum. */
        TOO_LONG,
        /** A character outside the allowed set. */
        ILLEGAL_CHARACTER,
        /** The key does not match a custom pattern. */
        PATTERN_MISMATCH
    }

    private final Violation violation;

    private InvalidIdempotencyKeyException(Violation violation, String message) {
        super(message, false);
        this.violation = violation;
    }

    static InvalidIdempotencyKeyException of(Violation violation, String message) {
        return new InvalidIdempotencyKeyException(violation, message);
    }

    public Violation violation() {
        return violation;
    }

    /**
     * {@code missing-idempotency-key} when no key was sent, {@code invalid-idempotency-key} otherwise.
     */
    @Override
    public String problemType() {
        return violation == Violation.MISSING ? "missing-idempotency-key" : "invalid-idempotency-key";
    }
}
