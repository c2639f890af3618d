package dev.onceonly.http;

import dev.onceonly.IdempotencyException;

/**
 * A request to an idempotent endpoint came without an authenticated owner, and {@code onceonly.http.allow-anonymous}
 * is off: anonymous clients would all share one owner, so one could read another's stored response.
 */
public final class AuthenticationRequiredException extends IdempotencyException {

    private AuthenticationRequiredException() {
        super("Idempotent requests must be authenticated: the owner of a key comes from authentication", false);
    }

    public static AuthenticationRequiredException of() {
        return new AuthenticationRequiredException();
    }

    @Override
    public String problemType() {
        return "authentication-required";
    }
}
