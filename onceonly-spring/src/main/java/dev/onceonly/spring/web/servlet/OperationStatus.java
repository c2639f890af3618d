package dev.onceonly.spring.web.servlet;

import dev.onceonly.IdempotencyKeyFormat;
import dev.onceonly.spring.async.AsynchronousOperations;
import dev.onceonly.spring.web.AcceptedRequest;
import dev.onceonly.spring.web.Idempotent;
import dev.onceonly.spring.web.OperationResponses;
import dev.onceonly.spring.web.internal.OperationLookup;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.ResponseEntity;

/**
 * The status resource of the operations an {@linkplain Idempotent#asynchronous() asynchronous endpoint} accepts,
 * for the application's own route (the one its {@link AcceptedRequest#accept} names):
 *
 * <pre>{@code
 * @GetMapping("/api/payment-operations/{key}")
 * ResponseEntity<byte[]> payment(@PathVariable String key, HttpServletRequest request) {
 *     return operationStatus.of(request, "pay-order", key);
 * }
 * }</pre>
 *
 * A key belongs to the owner that sent it, resolved by the same rule as the {@code Idempotency-Key} filter's.
 * Thread-safe.
 */
public final class OperationStatus {

    private final RequestOwners owners;
    private final OperationLookup lookup;

    public OperationStatus(AsynchronousOperations operations, IdempotencyKeyFormat keyFormat, RequestOwners owners,
            OperationResponses responses) {
        this.owners = owners;
        this.lookup = new OperationLookup(operations, keyFormat, responses);
    }

    /**
     * How the operation accepted under {@code key} stands.
     *
     * @param operation the operation's name, as its endpoint's {@link Idempotent#value()}
     * @param key the key as the client sent it, from the status resource's path
     * @return {@code 202} with its state, {@code Location} and {@code Retry-After} while it runs or waits for its
     *     next attempt; its stored answer with {@code Idempotent-Replayed: true} once it has one; 404 problem
     *     {@code operation-not-found} for a key this owner never sent (or another owner's, or one that expired);
     *     401 or 403 without a usable owner; 503 while the store is unreachable
     */
    public ResponseEntity<byte[]> of(HttpServletRequest request, String operation, String key) {
        return lookup.answer(() -> owners.ownerOf(request), request.getRequestURI(), operation, key);
    }
}
