package dev.onceonly.spring.method;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The parameter of an {@link IdempotentMethod} that names whose key it is (a customer, a tenant), as its
 * {@code toString()}: keys of two owners never meet. It is not part of the fingerprint.
 */
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface IdempotencyOwner {
}
