package dev.onceonly.http;

import dev.onceonly.IdempotencyException;
import dev.onceonly.IdempotencyScope;

/**
 * The request is authenticated (or the call declares its owner), but the owner cannot own idempotency keys: the owner
 * resolver failed, or gave an owner that is blank or longer than the store holds. 403: authenticating again as the
 * same principal cannot help.
 */
public final class OwnerUnresolvableException extends IdempotencyException {

    private OwnerUnresolvableException(String message) {
        super(message, false);
    }

    public static OwnerUnresolvableException resolverFailed() {
        return new OwnerUnresolvableException("The owner of this request could not be resolved");
    }

    public static OwnerUnresolvableException blank() {
        return new OwnerUnresolvableException("The owner is blank");
    }

    public static OwnerUnresolvableException tooLong(int length) {
        return new OwnerUnresolvableException("The owner is " + length + " characters long; at most "
                + IdempotencyScope.MAX_NAME_LENGTH + " are allowed");
    }

    @Override
    public String problemType() {
        return "owner-unresolvable";
    }
}
