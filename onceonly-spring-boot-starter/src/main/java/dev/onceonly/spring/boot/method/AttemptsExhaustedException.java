package dev.onceonly.spring.boot.method;

import dev.onceonly.IdempotencyException;

/**
 * Thrown by a call whose key's every allowed attempt failed (leased mode, {@code onceonly.lease.max-attempts}): the
 * method is not run again for the key.
 */
public final class AttemptsExhaustedException extends IdempotencyException {

    AttemptsExhaustedException() {
        super("Every attempt allowed for this key failed; it is not tried again");
    }

    @Override
    public String problemType() {
        return "attempts-exhausted";
    }
}
