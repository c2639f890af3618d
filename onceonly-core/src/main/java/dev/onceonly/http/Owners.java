package dev.onceonly.http;

import dev.onceonly.IdempotencyScope;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whose keys a request or call uses: the one rule for HTTP requests and idempotent methods alike.
 *
 * <p>Anonymous ones share the owner {@value #ANONYMOUS}, where that is allowed. No named owner can be that string:
 * an owner that starts with {@code ~} is stored with one more {@code ~} in front, so a principal called
 * {@code anonymous}, or even {@code ~anonymous}, keeps keys of its own.
 */
public final class Owners {

    /** The one owner of all anonymous requests and calls. */
    public static final String ANONYMOUS = "~anonymous";

    private static final Logger log = LoggerFactory.getLogger(Owners.class);

    private Owners() {
    }

    /**
     * The owner as stored, of a request or call whose owner was resolved as {@code resolved}.
     *
     * @param resolved the owner's name, {@code null} if anonymous
     * @param allowAnonymous whether anonymous requests share {@value #ANONYMOUS} rather than being refused
     * @throws AuthenticationRequiredException if it is {@code null} and anonymous ones are refused
     * @throws OwnerUnresolvableException if it is blank or too long
     */
    public static String checked(@Nullable String resolved, boolean allowAnonymous) {
        if (resolved == null) {
            if (!allowAnonymous) {
                throw AuthenticationRequiredException.of();
            }
            return ANONYMOUS;
        }
        if (resolved.isBlank()) {
            throw OwnerUnresolvableException.blank();
        }
        String owner = resolved.startsWith("~") ? "~" + resolved : resolved;
        if (owner.length() > IdempotencyScope.MAX_NAME_LENGTH) {
            throw OwnerUnresolvableException.tooLong(owner.length());
        }
        return owner;
    }

    /**
     * The refusal of a request whose owner resolver failed, logged by the failure's type alone: a resolver that
     * queries a database fails with the database's text, which can quote rows.
     *
     * @param resolver the resolver's kind, as the application knows it
     * @param request the request's method and path
     */
    public static OwnerUnresolvableException resolverFailed(String resolver, String request, Throwable failure) {
        log.warn("The {} failed for {} with {}", resolver, request, failure.getClass().getName());
        return OwnerUnresolvableException.resolverFailed();
    }
}
