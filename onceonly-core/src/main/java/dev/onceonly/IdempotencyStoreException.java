package dev.onceonly;

/**
 * The durable store is broken or unreachable. Thrown before the work runs, it means nothing was executed
 * (fail closed); expected outcomes such as duplicates are never reported this way.
 */
public final class IdempotencyStoreException extends IdempotencyException {

    public IdempotencyStoreException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public String problemType() {
        return "idempotency-store-unavailable";
    }
}
