package dev.onceonly.spring.async;

import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;

/**
 * The data of one queued operation: its scope, the key as stored, and its payload as JSON.
 *
 * @param payload the payload, serialized by the application's JSON mapper
 */
public record OperationTask(String owner, String operation, String key, String payload) {

    static OperationTask of(IdempotencyScope stored, String payload) {
        return new OperationTask(stored.owner(), stored.operation(), stored.key().value(), payload);
    }

    IdempotencyScope scope() {
        // The stores' rules only: the key was valid when submitted, in whatever format the application chose.
        return IdempotencyScope.of(owner, operation, new IdempotencyKey(key));
    }

    /** The task's id, one per scope: the queue's ids hold 100 characters, fewer than a scope may have. */
    String instanceId() {
        return scope().id();
    }

    /** Names the operation only: the owner and key are the client's, and the payload may be personal data. */
    @Override
    public String toString() {
        return "OperationTask[operation=" + operation + "]";
    }
}
