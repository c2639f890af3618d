package dev.onceonly;

/**
 * The durable store is broken or unreachable, or holds a record it cannot read. Thrown before the work runs, it
 * means nothing was executed (fail closed); expected outcomes such as duplicates are never reported this way.
 */
public final class IdempotencyStoreException extends IdempotencyException {

    /**
     * Without a cause, for stores whose underlying errors may quote stored values (database messages do): the
     * message then carries only safe facts such as an error code.
     */
    public IdempotencyStoreException(String message) {
        super(message);
    }

    public IdempotencyStoreException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public String problemType() {
        return "idempotency-store-unavailable";
    }
}
