package dev.onceonly.spring.method;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The parameter of an {@link IdempotentMethod} that holds the idempotency key, as its {@code toString()}: any text of
 * 1 to 255 characters without control characters. It is not part of the fingerprint.
 */
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface IdempotencyKeyParam {
}
