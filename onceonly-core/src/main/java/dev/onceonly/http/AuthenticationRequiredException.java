package dev.onceonly.http;

import dev.onceonly.IdempotencyException;

/**
 * A request to an idempotent endpoint, or an idempotent method call that declares no owner, came without an
 * authenticated principal, and anonymous ones are not allowed: they would all share one owner, so one could read
 * another's stored outcome.
 */
public final class AuthenticationRequiredException extends IdempotencyException {

    private AuthenticationRequiredException(String message) {
        super(message, false);
    }

    /** A request without an authenticated owner. */
    public static AuthenticationRequiredException of() {
        return new AuthenticationRequiredException("Idempotent requests must be authenticated: the owner of a key "
                + "comes from authentication");
    }

    /** A method call that declares no owner, on a thread without an authenticated principal. */
    public static AuthenticationRequiredException ofCall(String method) {
        return new AuthenticationRequiredException("The idempotent call of " + method + " declares no owner and "
                + "runs without an authenticated principal: declare its owner (@IdempotencyOwner or the "
                + "annotation's owner), or allow anonymous calls, which all share one owner");
    }

    @Override
    public String problemType() {
        return "authentication-required";
    }
}
