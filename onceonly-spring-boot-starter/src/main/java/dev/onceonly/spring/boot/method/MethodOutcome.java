package dev.onceonly.spring.boot.method;

import org.jspecify.annotations.Nullable;

/** What one call of an {@link IdempotentMethod} ended with, as it is stored: a result, or a final exception. */
sealed interface MethodOutcome {

    /** @param value what the method returned; {@code null} for {@code void} */
    record Returned(@Nullable Object value) implements MethodOutcome {
    }

    /** @param exception one of the method's {@linkplain IdempotentMethod#finalExceptions() final exceptions} */
    record Threw(Throwable exception) implements MethodOutcome {
    }
}
