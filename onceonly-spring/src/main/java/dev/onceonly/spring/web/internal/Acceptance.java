package dev.onceonly.spring.web.internal;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyKeyReusedException;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.RequestInProgressException;
import dev.onceonly.StoredResponse;
import dev.onceonly.Submission;
import dev.onceonly.http.RequestOutcome;
import dev.onceonly.spring.async.AsynchronousOperations;
import dev.onceonly.spring.web.AcceptedRequest;
import dev.onceonly.spring.web.OperationResponses;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.springframework.http.ResponseEntity;
import org.springframework.web.util.UriUtils;

/**
 * The {@link AcceptedRequest} the {@code Idempotency-Key} filter hands an asynchronous endpoint's handler: the
 * scope and fingerprint it made, and the protocol's answers.
 */
public final class Acceptance implements AcceptedRequest {

    /** The request attribute the filter puts it under. */
    public static final String ATTRIBUTE = AcceptedRequest.class.getName();

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
    public Acceptance(AsynchronousOperations operations, IdempotencyScope scope, Fingerprint fingerprint,
            String instance, String contextPath, OperationResponses responses, IdempotencyProtocol protocol) {
        this.operations = operations;
        this.scope = scope;
        this.fingerprint = fingerprint;
        this.instance = instance;
        this.contextPath = contextPath;
        this.responses = responses;
        this.protocol = protocol;
    }

    @Override
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
