package dev.onceonly.spring.web;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyKeyReusedException;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.RequestInProgressException;
import dev.onceonly.StoredResponse;
import dev.onceonly.Submission;
import dev.onceonly.http.RequestOutcome;
import dev.onceonly.spring.async.AsynchronousOperations;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.springframework.http.ResponseEntity;
import org.springframework.web.util.UriUtils;

/**
 * A request to an {@linkplain Idempotent#asynchronous() asynchronous endpoint}, with its key, owner and
 * fingerprint as the {@code Idempotency-Key} filter made them: declared as a parameter of its handler, which says
 * what the worker needs and answers with {@link #accept}.
 *
 * <pre>{@code
 * @PostMapping(path = "/api/orders/{orderId}/payments", headers = "Prefer=respond-async")
 * @Idempotent(value = "pay-order", asynchronous = true)
 * ResponseEntity<byte[]> payLater(@PathVariable long orderId, AcceptedRequest request, Authentication user) {
 *     return request.accept(new PayOrder(orderId, user.getName()), "/api/payment-operations/{key}");
 * }
 * }</pre>
 */
public final class AcceptedRequest {

    /** The request attribute the filter puts it under. */
    static final String ATTRIBUTE = AcceptedRequest.class.getName();

    private static final String KEY_VARIABLE = "{key}";

    private final AsynchronousOperations operations;
    private final IdempotencyScope scope;
    private final Fingerprint fingerprint;
    private final String instance;
    private final String contextPath;
    private final OperationResponses responses;
    private final IdempotencyProtocol protocol;

    /**
     * @param instance the request's URI, the {@code instance} of its problems
     * @param contextPath the application's context path, which the {@code Location} of a 202 begins with
     */
    AcceptedRequest(AsynchronousOperations operations, IdempotencyScope scope, Fingerprint fingerprint,
            String instance, String contextPath, OperationResponses responses, IdempotencyProtocol protocol) {
        this.operations = operations;
        this.scope = scope;
        this.fingerprint = fingerprint;
        this.instance = instance;
        this.contextPath = contextPath;
        this.responses = responses;
        this.protocol = protocol;
    }

    /**
     * Accepts the operation unless its key has a record already, and answers as the protocol says. Call it outside
     * any transaction: the record and the worker's task commit together in one of their own.
     *
     * @param payload what the worker's {@link dev.onceonly.spring.async.AsynchronousOperation} is given,
     *     stored as JSON until the operation has finished
     * @param statusRoute the route of the operation's status resource within the application, with a {@code {key}}
     *     variable for the key as the client sent it, such as {@code /api/payment-operations/{key}}: the
     *     {@code Location} of a 202, after the context path
     * @return {@code 202 Accepted} with {@code Location}, {@code Retry-After} and {@code Preference-Applied:
     *     respond-async} while the operation runs (or a synchronous request of the same key does); the key's
     *     stored answer with {@code Idempotent-Replayed: true} once it has one; the filter's problems for a key
     *     reused with another request (422 or 409), a submission that has not committed yet (409) and an
     *     unreachable store (503), each with nothing accepted
     * @throws IllegalArgumentException if {@code statusRoute} has no {@code {key}}
     */
    public ResponseEntity<byte[]> accept(Object payload, String statusRoute) {
        if (!statusRoute.contains(KEY_VARIABLE)) {
            throw new IllegalArgumentException("The status route " + statusRoute + " has no " + KEY_VARIABLE);
        }
        Submission<StoredResponse> submission;
        try {
            submission = operations.submit(scope, fingerprint, payload);
        } catch (IdempotencyKeyReusedException | RequestInProgressException | IdempotencyStoreException e) {
            // Nothing was accepted: the request's own refusals, as the filter answers them
            return responses.problem(Objects.requireNonNull(protocol.refusal(e, scope.operation(), false)).problem(),
                    instance);
        }
        return switch (submission) {
            case Submission.Accepted<StoredResponse> accepted -> {
                protocol.notify(scope.operation(),
                        accepted.created() ? RequestOutcome.EXECUTED : RequestOutcome.REPLAYED);
                yield responses.running(accepted.record(), location(statusRoute), true);
            }
            case Submission.Finished<StoredResponse> finished -> {
                protocol.notify(scope.operation(), RequestOutcome.REPLAYED);
                yield OperationResponses.replay(finished.result().value());
            }
        };
    }

    private URI location(String statusRoute) {
        return URI.create(contextPath + statusRoute.replace(KEY_VARIABLE,
                UriUtils.encodePathSegment(scope.key().value(), StandardCharsets.UTF_8)));
    }
}
