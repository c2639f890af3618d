package dev.onceonly.spring.boot.web;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;

/** The owner is the name of Spring Security's authenticated principal; anonymous requests share one owner. */
public final class SecurityOwnerResolver implements IdempotencyOwnerResolver {

    @Override
    public String resolveOwner(HttpServletRequest request) {
        Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
        if (authentication == null || !authentication.isAuthenticated()
                || authentication instanceof AnonymousAuthenticationToken) {
            return ANONYMOUS;
        }
        return authentication.getName();
    }
}
