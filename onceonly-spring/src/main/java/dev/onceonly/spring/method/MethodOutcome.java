package dev.onceonly.spring.method;

import dev.onceonly.StoredResponse;
import org.jspecify.annotations.Nullable;

/**
 * What one call of an {@link IdempotentMethod} ended with, together with what is stored of it: encoded as soon as the
 * method returned, so that a result that cannot be stored is known while the call can still say so.
 */
sealed interface MethodOutcome {

    StoredResponse stored();

    /** @param value what the method returned; {@code null} for {@code void} */
    record Returned(@Nullable Object value, StoredResponse stored) implements MethodOutcome {
    }

    /**
     * @param exception one of the method's {@linkplain IdempotentMethod#finalExceptions() final exceptions}, or the
     *     exception a stored outcome stands for
     */
    record Threw(Throwable exception, StoredResponse stored) implements MethodOutcome {
    }
}
