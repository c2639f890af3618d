package dev.onceonly.spring.boot.web;

import dev.onceonly.IdempotencyScope;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The owner part of a request's scope, from the application's {@link IdempotencyOwnerResolver}.
 *
 * <p>Anonymous requests (the resolver answers {@code null}) share the owner {@value #ANONYMOUS}. No authenticated
 * owner can be that string: an owner that starts with {@code ~} is stored with one more {@code ~} in front, so a
 * principal called {@code anonymous}, or even {@code ~anonymous}, keeps keys of its own.
 */
final class RequestOwners {

    /** The one owner of all anonymous requests. */
    static final String ANONYMOUS = "~anonymous";

    private static final Logger log = LoggerFactory.getLogger(RequestOwners.class);

    private final IdempotencyOwnerResolver resolver;
    private final boolean allowAnonymous;

    RequestOwners(IdempotencyOwnerResolver resolver, boolean allowAnonymous) {
        this.resolver = resolver;
        this.allowAnonymous = allowAnonymous;
    }

    /**
     * The owner of {@code request}'s keys, at most {@link IdempotencyScope#MAX_NAME_LENGTH} characters.
     *
     * @throws AuthenticationRequiredException if the request is anonymous and anonymous requests are refused
     * @throws OwnerUnresolvableException if the resolver fails, or gives a blank or too long owner
     */
    String ownerOf(HttpServletRequest request) {
        @Nullable String resolved;
        try {
            resolved = resolver.resolveOwner(request);
        } catch (RuntimeException e) {
            // Only the type: a resolver that queries a database fails with the database's text, which can quote rows.
            log.warn("The IdempotencyOwnerResolver failed for {} {} with {}", request.getMethod(),
                    request.getRequestURI(), e.getClass().getName());
            throw OwnerUnresolvableException.resolverFailed();
        }
        return checked(resolved, allowAnonymous);
    }

    /**
     * The owner of a request as a resolver answered it, on any server.
     *
     * @throws AuthenticationRequiredException if it is {@code null} (anonymous) and anonymous requests are refused
     * @throws OwnerUnresolvableException if it is blank or too long
     */
    static String checked(@Nullable String resolved, boolean allowAnonymous) {
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
