package dev.onceonly.example.payments;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyKeyFormat;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.InvalidIdempotencyKeyException;
import dev.onceonly.StoredResponse;
import dev.onceonly.Submission;
import dev.onceonly.example.web.Problems;
import dev.onceonly.example.web.StoredResponses;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spring.boot.OnceOnlyProperties;
import dev.onceonly.spring.boot.async.AsynchronousOperations;
import dev.onceonly.spring.boot.web.IdempotencyOwnerResolver;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import org.springframework.web.ErrorResponseException;
import org.springframework.web.util.UriUtils;
import tools.jackson.databind.json.JsonMapper;

/**
 * Payments accepted with {@code 202} and run by a worker: the submit is their idempotency, so this builds the scope
 * the Idempotency-Key filter would (owner from the same resolver, key parsed by the same format from the same
 * header, refused with the same problems) under an operation of its own, {@value PayOrderOperation#NAME}.
 */
@RunsWithOnceOnly
@Component
class AsyncPayments {

    static final String OPERATIONS_ROUTE = "/api/payment-operations/";

    private final AsynchronousOperations operations;
    private final IdempotencyOwnerResolver owners;
    private final IdempotencyKeyFormat keyFormat;
    private final String keyHeader;
    private final Problems problems;
    private final JsonMapper json;
    private final Clock clock;

    AsyncPayments(AsynchronousOperations operations, IdempotencyOwnerResolver owners, IdempotencyKeyFormat keyFormat,
            OnceOnlyProperties properties, Problems problems, JsonMapper json, Clock clock) {
        this.operations = operations;
        this.owners = owners;
        this.keyFormat = keyFormat;
        this.keyHeader = properties.key().headerName();
        this.problems = problems;
        this.json = json;
        this.clock = clock;
    }

    /**
     * Accepts the payment of {@code orderId} unless its key was accepted before: 202 while it runs, the stored
     * answer with {@code Idempotent-Replayed: true} once it has one.
     *
     * @throws ErrorResponseException 400 for a missing or invalid key
     * @throws dev.onceonly.IdempotencyKeyReusedException if the key was used to pay another order
     */
    ResponseEntity<byte[]> submit(HttpServletRequest request, long orderId) {
        IdempotencyKey key = key(request);
        IdempotencyScope scope = scope(request, key);
        Fingerprint fingerprint = Fingerprint.builder().method("POST").route(PaymentService.ROUTE)
                .component("orderId", Long.toString(orderId)).build();
        Submission<StoredResponse> submission = operations.submit(scope, fingerprint,
                new PayOrderOperation.Payload(orderId, scope.owner()));
        return switch (submission) {
            case Submission.Accepted<StoredResponse> accepted -> running(key.value())
                    .header("Preference-Applied", "respond-async")
                    .body(progress(accepted.record()));
            case Submission.Finished<StoredResponse> finished -> StoredResponses.toEntity(finished.result().value(),
                    true);
        };
    }

    /**
     * How the payment accepted under {@code rawKey} stands: 202 while it runs, its answer once it has one, 404 for
     * a key this owner never submitted (or another owner's).
     */
    ResponseEntity<byte[]> status(HttpServletRequest request, String rawKey) {
        Optional<IdempotencyRecord> found;
        try {
            found = operations.status(scope(request, keyFormat.validate(rawKey)));
        } catch (InvalidIdempotencyKeyException invalid) {
            // No key of this format was ever accepted.
            found = Optional.empty();
        }
        IdempotencyRecord record = found.filter(r -> !r.isExpired(clock.instant())).orElseThrow(() -> problems.of(
                HttpStatus.NOT_FOUND, "payment-operation-not-found", "Payment operation not found",
                "No payment was accepted under this Idempotency-Key"));
        if (record.response() != null) {
            return StoredResponses.toEntity(record.response(), true);
        }
        return running(rawKey).body(progress(record));
    }

    private static ResponseEntity.BodyBuilder running(String key) {
        return ResponseEntity.status(HttpStatus.ACCEPTED)
                .location(URI.create(OPERATIONS_ROUTE + UriUtils.encodePathSegment(key, StandardCharsets.UTF_8)))
                .header(HttpHeaders.RETRY_AFTER, "1")
                .contentType(MediaType.APPLICATION_JSON);
    }

    private byte[] progress(IdempotencyRecord record) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("state", record.state().name());
        body.put("attempt", record.attempt());
        if (record.nextAttemptAt() != null) {
            body.put("nextAttemptAt", record.nextAttemptAt().toString());
        }
        return json.writeValueAsBytes(body);
    }

    private IdempotencyScope scope(HttpServletRequest request, IdempotencyKey key) {
        String owner = owners.resolveOwner(request);
        if (owner == null) {
            throw problems.of(HttpStatus.UNAUTHORIZED, "authentication-required", "Authentication required",
                    "Payments need an authenticated user");
        }
        return IdempotencyScope.of(owner, PayOrderOperation.NAME, key);
    }

    private IdempotencyKey key(HttpServletRequest request) {
        try {
            return keyFormat.parseHeader(Collections.list(request.getHeaders(keyHeader)));
        } catch (InvalidIdempotencyKeyException invalid) {
            boolean missing = "missing-idempotency-key".equals(invalid.problemType());
            throw problems.of(HttpStatus.BAD_REQUEST, invalid.problemType(),
                    missing ? "Idempotency-Key header missing" : "Invalid Idempotency-Key header",
                    invalid.getMessage());
        }
    }
}
