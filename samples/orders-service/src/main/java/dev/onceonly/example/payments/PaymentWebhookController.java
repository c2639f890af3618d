package dev.onceonly.example.payments;

import dev.onceonly.IdempotencyException;
import dev.onceonly.IdempotencyKeyReusedException;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.IdempotentResult;
import dev.onceonly.RequestInProgressException;
import dev.onceonly.StoredResponse;
import dev.onceonly.example.payments.PaymentEventReader.MalformedPaymentEventException;
import dev.onceonly.example.payments.PaymentSignature.Verdict;
import dev.onceonly.example.web.Problems;
import dev.onceonly.example.web.StoredResponses;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.ErrorResponseException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/webhooks/payments}: events of the payment provider. No user sends them; the
 * {@code Payment-Signature} header authenticates each one (401 problem when it is missing, wrong or too old, 400
 * when it is malformed), and only then is the body read (400 problem when it is no payment event). Every event
 * that is read gets a 2xx receipt, the first one again on redelivery, with {@code Idempotent-Replayed: true}.
 */
@RunsWithOnceOnly
@RestController
class PaymentWebhookController {

    static final String SIGNATURE_HEADER = "Payment-Signature";
    /** Far above any event the provider sends; the body is held in memory to check its signature. */
    private static final int MAX_BODY = 64 * 1024;

    private final PaymentSignature signature;
    private final PaymentEventReader reader;
    private final PaymentWebhooks webhooks;
    private final Problems problems;

    PaymentWebhookController(PaymentSignature signature, PaymentEventReader reader, PaymentWebhooks webhooks,
            Problems problems) {
        this.signature = signature;
        this.reader = reader;
        this.webhooks = webhooks;
        this.problems = problems;
    }

    @PostMapping(PaymentWebhooks.ROUTE)
    ResponseEntity<byte[]> receive(HttpServletRequest request) throws IOException {
        byte[] body = boundedBody(request);
        List<String> signatures = Collections.list(request.getHeaders(SIGNATURE_HEADER));
        Verdict verdict = signature.verify(signatures, body);
        if (verdict != Verdict.VALID) {
            throw refused(verdict);
        }
        PaymentEvent event;
        try {
            event = reader.read(body);
        } catch (MalformedPaymentEventException e) {
            throw problems.of(HttpStatus.BAD_REQUEST, "malformed-payment-event", "Malformed payment event",
                    Objects.requireNonNullElse(e.getMessage(), "The payment event is malformed"));
        }
        IdempotentResult<StoredResponse> receipt = webhooks.receive(event, body);
        return StoredResponses.toEntity(receipt.value(), receipt.replayed());
    }

    private byte[] boundedBody(HttpServletRequest request) throws IOException {
        if (request.getContentLengthLong() > MAX_BODY) {
            throw tooLarge();
        }
        try (InputStream in = request.getInputStream()) {
            byte[] body = in.readNBytes(MAX_BODY + 1);
            if (body.length > MAX_BODY) {
                throw tooLarge();
            }
            return body;
        }
    }

    private ErrorResponseException tooLarge() {
        return problems.of(HttpStatus.CONTENT_TOO_LARGE, "payment-event-too-large", "Payment event too large",
                "A payment event has at most " + MAX_BODY + " bytes");
    }

    private ErrorResponseException refused(Verdict verdict) {
        if (verdict == Verdict.MALFORMED) {
            return problems.of(HttpStatus.BAD_REQUEST, "malformed-payment-signature", "Malformed payment signature",
                    "The " + SIGNATURE_HEADER + " header must be one value of the form t=<epoch seconds>,v1=<hex>");
        }
        String detail = switch (verdict) {
            case MISSING -> "The " + SIGNATURE_HEADER + " header is missing";
            case EXPIRED -> "The signature's timestamp is outside the tolerance: a delivery is not accepted later";
            default -> "The signature does not match the body";
        };
        ErrorResponseException problem = problems.of(HttpStatus.UNAUTHORIZED, "invalid-payment-signature",
                "Invalid payment signature", detail);
        // RFC 9110: a 401 names the scheme that authenticates; here the signature header's.
        problem.getHeaders().set(HttpHeaders.WWW_AUTHENTICATE, SIGNATURE_HEADER);
        return problem;
    }

    /** The engine's refusals, which the Idempotency-Key filter answers for other endpoints, answered alike. */
    @ExceptionHandler(IdempotencyException.class)
    ErrorResponseException idempotencyProblem(IdempotencyException e) {
        return switch (e) {
            case IdempotencyKeyReusedException reused -> problems.of(HttpStatus.UNPROCESSABLE_CONTENT,
                    reused.problemType(), "Payment event id reused with a different body",
                    "Another event with this id was received before");
            case RequestInProgressException inProgress -> retryLater(problems.of(HttpStatus.CONFLICT,
                    inProgress.problemType(), "Payment event in progress",
                    "A delivery of this event is being processed"), inProgress.retryAfter());
            case IdempotencyStoreException unavailable -> retryLater(problems.of(HttpStatus.SERVICE_UNAVAILABLE,
                    unavailable.problemType(), "Idempotency store unavailable",
                    "The event was not processed; deliver it again later"), webhooks.retryAfter());
            default -> throw e;
        };
    }

    private static ErrorResponseException retryLater(ErrorResponseException problem, Duration after) {
        problem.getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(Math.max(1, after.toSeconds())));
        return problem;
    }
}
