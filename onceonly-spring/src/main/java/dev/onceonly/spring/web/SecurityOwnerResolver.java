package dev.onceonly.spring.web;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.client.authentication.OAuth2AuthenticationToken;
import org.springframework.security.oauth2.core.ClaimAccessor;
import org.springframework.util.ClassUtils;

/**
 * The owner is Spring Security's authenticated principal: its name, qualified by the issuer of its token where the
 * principal has one (a JWT, an introspected token or an OpenID Connect user with an {@code iss} claim), else by the
 * client registration of an OAuth 2 login. Anonymous requests have no owner.
 *
 * <p>The issuer keeps apart tenants that each have their own identity provider, issuer or realm (Spring Security's
 * multi-tenancy by issuer, Keycloak realms, Entra ID tenants): the same subject from two issuers is two owners, and
 * the same name from two OAuth 2 providers without issuers is two owners. Owners are written with
 * {@link IdempotencyOwnerResolver#qualified} and {@link IdempotencyOwnerResolver#name}, so that none reads like
 * another: a plain name never contains a space, a qualified one always does, and a registration's qualifier starts
 * with {@value #REGISTRATION}, which no encoded issuer can (their {@code %} is always {@code %25} or {@code %20}).
 * A tenant that only your application knows (a column of your user table, a claim other than the issuer) needs an
 * {@link IdempotencyOwnerResolver} bean of your own that adds it.
 */
public final class SecurityOwnerResolver implements IdempotencyOwnerResolver {

    /** Begins the qualifier of an OAuth 2 login's owner, before the registration id. */
    static final String REGISTRATION = "%registration:";

    private static final boolean CLAIMS_PRESENT = ClassUtils.isPresent(
            "org.springframework.security.oauth2.core.ClaimAccessor", SecurityOwnerResolver.class.getClassLoader());
    private static final boolean CLIENT_PRESENT = ClassUtils.isPresent(
            "org.springframework.security.oauth2.client.authentication.OAuth2AuthenticationToken",
            SecurityOwnerResolver.class.getClassLoader());

    @Override
    public @Nullable String resolveOwner(HttpServletRequest request) {
        return currentPrincipal();
    }

    /**
     * The owner of the principal authenticated on the calling thread, as described above, or {@code null} if there is
     * none: also for callers without a request, such as an {@code @IdempotentMethod}.
     */
    public static @Nullable String currentPrincipal() {
        return ownerOf(SecurityContextHolder.getContext().getAuthentication());
    }

    /**
     * The owner of {@code authentication} as described above, or {@code null} for none or an anonymous one: also for
     * a reactive server's security context.
     */
    public static @Nullable String ownerOf(@Nullable Authentication authentication) {
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
        if (issuer != null) {
            return IdempotencyOwnerResolver.qualified(issuer, name);
        }
        String registration = CLIENT_PRESENT ? Registration.of(authentication) : null;
        // The marker goes in front unencoded: its raw '%' is what no encoded issuer has.
        return registration != null ? REGISTRATION + IdempotencyOwnerResolver.qualified(registration, name)
                : IdempotencyOwnerResolver.name(name);
    }

    /** Loaded only where Spring Security's OAuth 2 core is present. */
    private static final class Issuer {

        static @Nullable String of(@Nullable Object principal) {
            String issuer = principal instanceof ClaimAccessor claims ? claims.getClaimAsString("iss") : null;
            return issuer == null || issuer.isBlank() ? null : issuer;
        }
    }

    /** Loaded only where Spring Security's OAuth 2 client is present. */
    private static final class Registration {

        static @Nullable String of(Authentication authentication) {
            return authentication instanceof OAuth2AuthenticationToken login
                    ? login.getAuthorizedClientRegistrationId() : null;
        }
    }
}
