package dev.onceonly.spring.web.servlet;

import dev.onceonly.IdempotencyScope;
import dev.onceonly.http.AuthenticationRequiredException;
import dev.onceonly.http.OwnerUnresolvableException;
import dev.onceonly.http.Owners;
import dev.onceonly.spring.web.IdempotencyOwnerResolver;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The owner part of a request's scope, from the application's {@link IdempotencyOwnerResolver}.
 *
 * <p>Checked by the rule of every owner ({@link Owners}): anonymous requests (the resolver answers {@code null})
 * share one owner where that is allowed.
 */
public final class RequestOwners {

    private static final Logger log = LoggerFactory.getLogger(RequestOwners.class);

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
            // Only the type: a resolver that queries a database fails with the database's text, which can quote rows.
            log.warn("The IdempotencyOwnerResolver failed for {} {} with {}", request.getMethod(),
                    request.getRequestURI(), e.getClass().getName());
            throw OwnerUnresolvableException.resolverFailed();
        }
        return Owners.checked(resolved, allowAnonymous);
    }
}
