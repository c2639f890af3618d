package dev.onceonly.spring.web.internal;

import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyKeyFormat;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.InvalidIdempotencyKeyException;
import dev.onceonly.http.AuthenticationRequiredException;
import dev.onceonly.http.OwnerUnresolvableException;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spring.async.AsynchronousOperations;
import dev.onceonly.spring.web.OperationResponses;
import java.net.URI;
import java.util.function.Supplier;
import org.springframework.http.ResponseEntity;

/**
 * How an operation that an asynchronous endpoint accepted stands, as its status resource answers on any server. A
 * key belongs to the owner that sent it, resolved by the same rule as the {@code Idempotency-Key} filter's.
 */
public final class OperationLookup {

    private final AsynchronousOperations operations;
    private final IdempotencyKeyFormat keyFormat;
    private final OperationResponses responses;

    public OperationLookup(AsynchronousOperations operations, IdempotencyKeyFormat keyFormat,
            OperationResponses responses) {
        this.operations = operations;
        this.keyFormat = keyFormat;
        this.responses = responses;
    }

    /**
     * The status resource's answer for the operation accepted under {@code key}.
     *
     * @param owner the request's owner, by the filter's rule: it may refuse the request
     * @param instance the request's path, the {@code instance} of its problems and the 202's {@code Location}
     * @param key the key as the client sent it, from the status resource's path
     */
    public ResponseEntity<byte[]> answer(Supplier<String> owner, String instance, String operation, String key) {
        IdempotencyRecord record;
        try {
            IdempotencyKey valid = keyFormat.validate(key);
            record = operations.status(IdempotencyScope.of(owner.get(), operation, valid)).orElse(null);
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
