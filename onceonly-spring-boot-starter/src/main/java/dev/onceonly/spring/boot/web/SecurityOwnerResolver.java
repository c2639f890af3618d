package dev.onceonly.spring.boot.web;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;

/**
 * The owner is the name of Spring Security's authenticated principal; anonymous requests have none.
 *
 * <p>The name alone knows no tenant: if two tenants can have a principal of the same name, define an
 * {@link IdempotencyOwnerResolver} bean that adds the tenant (the example service's owner is {@code tenant/user}).
 */
public final class SecurityOwnerResolver implements IdempotencyOwnerResolver {

    @Override
    public @Nullable String resolveOwner(HttpServletRequest request) {
        Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
        if (authentication == null || !authentication.isAuthenticated()
                || authentication instanceof AnonymousAuthenticationToken) {
            return null;
        }
        // An authenticated principal without a name must not become anonymous: a blank owner is refused.
        return authentication.getName() == null ? "" : authentication.getName();
    }
}
