package dev.onceonly.http;

import dev.onceonly.IdempotencyScope;
import org.jspecify.annotations.Nullable;

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
}
