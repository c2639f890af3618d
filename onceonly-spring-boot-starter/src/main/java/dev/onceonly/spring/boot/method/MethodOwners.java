package dev.onceonly.spring.boot.method;

import dev.onceonly.http.Owners;
import dev.onceonly.spring.boot.web.SecurityOwnerResolver;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/**
 * The owner of a call: the one it declares, else the principal authenticated on the calling thread, else the one
 * owner of all calls without either ({@link Owners#ANONYMOUS}, the HTTP layer's anonymous owner). Checked by the rule
 * of every owner, {@link Owners}.
 */
final class MethodOwners {

    private static final boolean SECURITY_PRESENT = ClassUtils.isPresent(
            "org.springframework.security.core.context.SecurityContextHolder", MethodOwners.class.getClassLoader());

    private MethodOwners() {
    }

    /** The owner of a call that declares none. */
    static String current() {
        return Owners.checked(SECURITY_PRESENT ? SecurityOwnerResolver.currentPrincipal() : null, true);
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
