package dev.onceonly.spring.boot.method;

import dev.onceonly.IdempotencyScope;
import dev.onceonly.spring.boot.web.SecurityOwnerResolver;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/**
 * The owner of a call: the one it declares, else the principal authenticated on the calling thread, else the one
 * owner {@value #ANONYMOUS} of all calls without either, the HTTP layer's anonymous owner. An owner that starts with
 * {@code ~} gets one more in front, so that none equals it.
 */
final class MethodOwners {

    static final String ANONYMOUS = "~anonymous";

    private static final boolean SECURITY_PRESENT = ClassUtils.isPresent(
            "org.springframework.security.core.context.SecurityContextHolder", MethodOwners.class.getClassLoader());

    private MethodOwners() {
    }

    /** The owner of a call that declares none. */
    static String current() {
        String principal = SECURITY_PRESENT ? SecurityOwnerResolver.currentPrincipal() : null;
        return principal == null ? ANONYMOUS : checked(principal);
    }

    /**
     * The owner a call declares ({@link IdempotencyOwner}, {@link IdempotentMethod#owner()}), as its
     * {@code toString()}.
     *
     * @throws IllegalArgumentException if it is missing, blank or too long
     */
    static String declared(@Nullable Object declared) {
        if (declared == null) {
            throw new IllegalArgumentException("The owner of this call is missing (null)");
        }
        return checked(declared.toString());
    }

    private static String checked(String owner) {
        if (owner.isBlank()) {
            throw new IllegalArgumentException("The owner of this call is blank");
        }
        String escaped = owner.startsWith("~") ? "~" + owner : owner;
        if (escaped.length() > IdempotencyScope.MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("The owner of this call is " + escaped.length() + " characters long; "
                    + "at most " + IdempotencyScope.MAX_NAME_LENGTH + " are allowed");
        }
        return escaped;
    }
}
