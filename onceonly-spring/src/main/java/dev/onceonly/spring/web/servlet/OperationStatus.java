package dev.onceonly.spring.web.servlet;

import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyKeyFormat;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.InvalidIdempotencyKeyException;
import dev.onceonly.http.AuthenticationRequiredException;
import dev.onceonly.http.OwnerUnresolvableException;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spring.async.AsynchronousOperations;
import dev.onceonly.spring.web.AcceptedRequest;
import dev.onceonly.spring.web.Idempotent;
import dev.onceonly.spring.web.OperationResponses;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
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

    private final AsynchronousOperations operations;
    private final IdempotencyKeyFormat keyFormat;
    private final RequestOwners owners;
    private final OperationResponses responses;

    public OperationStatus(AsynchronousOperations operations, IdempotencyKeyFormat keyFormat, RequestOwners owners,
            OperationResponses responses) {
        this.operations = operations;
        this.keyFormat = keyFormat;
        this.owners = owners;
        this.responses = responses;
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
        String instance = request.getRequestURI();
        IdempotencyRecord record;
        try {
            IdempotencyKey valid = keyFormat.validate(key);
            record = operations.status(IdempotencyScope.of(owners.ownerOf(request), operation, valid)).orElse(null);
        } catch (InvalidIdempotencyKeyException never) {
            // No key of this form was ever accepted.
            return responses.notFound(instance);
        } catch (AuthenticationRequiredException | OwnerUnresolvableException refused) {
            return responses.problem(refused, instance);
        } catch (IdempotencyStoreException unreachable) {
            return responses.problem(new IdempotencyStoreException("The idempotency store is unavailable", unreachable),
                    instance);
        }
        if (record == null || record.isExpired(responses.clock().instant())) {
            return responses.notFound(instance);
        }
        if (record.response() != null) {
            return OperationResponses.replay(record.response());
        }
        return responses.running(record, URI.create(instance), false);
    }
}
