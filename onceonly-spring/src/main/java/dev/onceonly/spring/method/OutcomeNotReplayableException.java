package dev.onceonly.spring.method;

import dev.onceonly.IdempotencyException;

/**
 * Thrown by a call whose key ended without a result to replay, and which is not run again: every attempt allowed
 * failed ({@code attempts-exhausted}, leased mode's {@code onceonly.lease.max-attempts}), or the first call took
 * effect but its result could not be stored ({@code result-not-storable}), or it ended with an unknown outcome.
 */
public final class OutcomeNotReplayableException extends IdempotencyException {

    private final String problemType;

    OutcomeNotReplayableException(String problemType, String message) {
        super(message);
        this.problemType = problemType;
    }

    /** A result that cannot be stored as JSON and read back as the method's declared type. */
    static OutcomeNotReplayableException notStorable(String detail) {
        return new OutcomeNotReplayableException("result-not-storable", detail);
    }

    /** The stored problem's type, such as {@code attempts-exhausted} or {@code result-not-storable}. */
    @Override
    public String problemType() {
        return problemType;
    }
}
