package dev.onceonly.spring.web.servlet;

import dev.onceonly.IdempotencyScope;
import dev.onceonly.http.AuthenticationRequiredException;
import dev.onceonly.http.OwnerUnresolvableException;
import dev.onceonly.http.Owners;
import dev.onceonly.spring.web.IdempotencyOwnerResolver;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * The owner part of a request's scope, from the application's {@link IdempotencyOwnerResolver}.
 *
 * <p>Checked by the rule of every owner ({@link Owners}): anonymous requests (the resolver answers {@code null})
 * share one owner where that is allowed.
 */
public final class RequestOwners {

    private final IdempotencyOwnerResolver resolver;
    private final boolean allowAnonymous;

    public RequestOwners(IdempotencyOwnerResolver resolver, boolean allowAnonymous) {
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
            throw Owners.resolverFailed("IdempotencyOwnerResolver", request.getMethod() + " "
                    + request.getRequestURI(), e);
        }
        return Owners.checked(resolved, allowAnonymous);
    }
}
