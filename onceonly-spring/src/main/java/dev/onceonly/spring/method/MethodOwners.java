package dev.onceonly.spring.method;

import dev.onceonly.http.AuthenticationRequiredException;
import dev.onceonly.http.Owners;
import dev.onceonly.spring.web.SecurityOwnerResolver;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/**
 * The owner of a call: the one it declares, else the principal authenticated on the calling thread, else, where
 * anonymous calls are allowed, the one owner of all calls without either ({@link Owners#ANONYMOUS}, the HTTP layer's
 * anonymous owner). Checked by the rule of every owner, {@link Owners}, as HTTP requests are.
 */
final class MethodOwners {

    private static final String SECURITY_CONTEXT = "org.springframework.security.core.context.SecurityContextHolder";
    private static final boolean SECURITY_PRESENT = ClassUtils.isPresent(SECURITY_CONTEXT,
            MethodOwners.class.getClassLoader());

    private MethodOwners() {
    }

    /**
     * Whether a call can have an authenticated principal: Spring Security's thread-bound one, if the application's
     * class loader has it.
     */
    static boolean principalsAvailable(@Nullable ClassLoader application) {
        return ClassUtils.isPresent(SECURITY_CONTEXT, application);
    }

    /**
     * The owner of a call of {@code where} that declares none.
     *
     * @throws AuthenticationRequiredException if no principal is authenticated and anonymous calls are refused
     */
    static String current(String where, boolean allowAnonymous) {
        String principal = SECURITY_PRESENT ? SecurityOwnerResolver.currentPrincipal() : null;
        if (principal == null && !allowAnonymous) {
            throw AuthenticationRequiredException.ofCall(where);
        }
        return Owners.checked(principal, allowAnonymous);
    }

    /**
     * The owner a call declares ({@link IdempotencyOwner}, {@link IdempotentMethod#owner()}), as its
     * {@code toString()}.
     *
     * @throws IllegalArgumentException if it is missing
     * @throws dev.onceonly.http.OwnerUnresolvableException if it is blank or too long
     */
    static String declared(@Nullable Object declared) {
        if (declared == null) {
            throw new IllegalArgumentException("The owner of this call is missing (null)");
        }
        return Owners.checked(declared.toString(), false);
    }
}
