package dev.onceonly.spring.boot.web;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.core.ClaimAccessor;
import org.springframework.util.ClassUtils;

/**
 * The owner is Spring Security's authenticated principal: its name, after the issuer of its token where the
 * principal has one (a JWT, an introspected token or an OpenID Connect user with an {@code iss} claim). Anonymous
 * requests have no owner.
 *
 * <p>The issuer keeps apart tenants that each have their own identity provider, issuer or realm (Spring Security's
 * multi-tenancy by issuer, Keycloak realms, Entra ID tenants): the same subject from two issuers is two owners.
 * The owner is the issuer, a space and the name, with {@code %} and spaces in the issuer percent-encoded so that
 * no other pair reads alike. A tenant that only your application knows (a column of your user table, a claim
 * other than the issuer) needs an {@link IdempotencyOwnerResolver} bean of your own that adds it.
 */
public final class SecurityOwnerResolver implements IdempotencyOwnerResolver {

    private static final boolean CLAIMS_PRESENT = ClassUtils.isPresent(
            "org.springframework.security.oauth2.core.ClaimAccessor", SecurityOwnerResolver.class.getClassLoader());

    @Override
    public @Nullable String resolveOwner(HttpServletRequest request) {
        Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
        if (authentication == null || !authentication.isAuthenticated()
                || authentication instanceof AnonymousAuthenticationToken) {
            return null;
        }
        String name = authentication.getName();
        if (name == null || name.isBlank()) {
            // An authenticated principal without a name must not become anonymous: a blank owner is refused.
            return "";
        }
        String issuer = CLAIMS_PRESENT ? Issuer.of(authentication.getPrincipal()) : null;
        return issuer == null ? name : issuer.replace("%", "%25").replace(" ", "%20") + " " + name;
    }

    /** Loaded only where Spring Security's OAuth 2 core is present. */
    private static final class Issuer {

        static @Nullable String of(@Nullable Object principal) {
            String issuer = principal instanceof ClaimAccessor claims ? claims.getClaimAsString("iss") : null;
            return issuer == null || issuer.isBlank() ? null : issuer;
        }
    }
}
