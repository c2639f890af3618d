package dev.onceonly;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Root of every exception OnceOnly throws.
 *
 * <p>Each subtype names a stable {@linkplain #problemType() problem type}, the last segment of the RFC 9457
 * {@code type} URI that an HTTP layer answers with. Messages name the scope and the rule involved, never a
 * request body, a token or other secret.
 */
public abstract class IdempotencyException extends RuntimeException {

    protected IdempotencyException(String message) {
        super(message);
    }

    protected IdempotencyException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    protected IdempotencyException(String message, boolean writableStackTrace) {
        super(message, null, false, writableStackTrace);
    }

    /**
     * The stable slug of this problem, such as {@code idempotency-key-reused}.
     */
    public abstract String problemType();

    /** What rule was broken, without request data or secrets; never {@code null}. */
    @Override
    public String getMessage() {
        return Objects.requireNonNullElse(super.getMessage(), problemType());
    }
}
