package dev.onceonly.example.payments;

import dev.onceonly.Attempt;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyException;
import dev.onceonly.IdempotencyKeyReusedException;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.RequestInProgressException;
import dev.onceonly.example.security.SecurityConfiguration;
import dev.onceonly.example.web.Problems;
import dev.onceonly.example.web.StoredResponses;
import dev.onceonly.spring.boot.OnceOnlyProperties;
import dev.onceonly.spring.boot.web.Idempotent;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.Authentication;
import org.springframework.web.ErrorResponseException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/orders/{orderId}/payments} pays an order through the provider, in one of two styles:
 * <ul>
 *   <li>synchronous: the request waits for the charge; an idempotent endpoint in leased mode, so no transaction is
 *       held open while the provider answers;</li>
 *   <li>asynchronous, with {@code Prefer: respond-async} (RFC 7240): 202 at once with the {@code Location} of
 *       {@code GET /api/payment-operations/{key}}, where the answer appears once a worker has it.</li>
 * </ul>
 * Both need an {@code Idempotency-Key} and an empty body (or {@code {}}), and answer alike: 201 paid, 402
 * declined, 409 for an order that another payment binds or that does not await payment, 503 while the provider
 * does not answer.
 */
@RunsWithOnceOnly
@RestController
class PaymentController {

    private final PaymentService payments;
    private final AsyncPayments asyncPayments;
    private final Problems problems;
    private final int keyReusedStatus;
    private final Duration retryAfter;

    PaymentController(PaymentService payments, AsyncPayments asyncPayments, Problems problems,
            OnceOnlyProperties properties, IdempotencyEngine engine) {
        this.payments = payments;
        this.asyncPayments = asyncPayments;
        this.problems = problems;
        this.keyReusedStatus = properties.http().keyReusedStatus();
        this.retryAfter = engine.retryAfter();
    }

    @PostMapping(PaymentService.ROUTE)
    @Idempotent(value = "pay-order", mode = IdempotencyMode.LEASED)
    ResponseEntity<byte[]> pay(@PathVariable long orderId, Attempt attempt, Authentication user,
            @RequestBody(required = false) @Nullable Map<String, Object> body) {
        requireNoMembers(body);
        return StoredResponses.toEntity(payments.pay(attempt, orderId, SecurityConfiguration.owner(user)), false);
    }

    /** Not {@link Idempotent}: accepting the operation is its idempotency. */
    @PostMapping(path = PaymentService.ROUTE, headers = "Prefer=respond-async")
    ResponseEntity<byte[]> payAsynchronously(@PathVariable long orderId, HttpServletRequest request,
            @RequestBody(required = false) @Nullable Map<String, Object> body) {
        requireNoMembers(body);
        return asyncPayments.submit(request, orderId);
    }

    @GetMapping(AsyncPayments.OPERATIONS_ROUTE + "{key}")
    ResponseEntity<byte[]> operation(@PathVariable String key, HttpServletRequest request) {
        return asyncPayments.status(request, key);
    }

    private void requireNoMembers(@Nullable Map<String, Object> body) {
        if (body != null && !body.isEmpty()) {
            throw problems.of(HttpStatus.BAD_REQUEST, "invalid-payment-request", "Invalid payment request",
                    "A payment takes no body, or {}: the order says what is paid");
        }
    }

    /** The engine's refusals of an asynchronous payment, answered as the Idempotency-Key filter answers them. */
    @ExceptionHandler(IdempotencyException.class)
    ErrorResponseException idempotencyProblem(IdempotencyException e) {
        return switch (e) {
            case IdempotencyKeyReusedException reused -> problems.of(HttpStatus.valueOf(keyReusedStatus),
                    reused.problemType(), "Idempotency-Key reused with a different request",
                    "This Idempotency-Key was used to pay another order");
            case RequestInProgressException inProgress -> retryLater(problems.of(HttpStatus.CONFLICT,
                    inProgress.problemType(), "A request with this Idempotency-Key is in progress",
                    "The payment is being accepted"), inProgress.retryAfter());
            case IdempotencyStoreException unavailable -> retryLater(problems.of(HttpStatus.SERVICE_UNAVAILABLE,
                    unavailable.problemType(), "Idempotency store unavailable",
                    "The payment was not accepted; retry later"), retryAfter);
            default -> throw e;
        };
    }

    private static ErrorResponseException retryLater(ErrorResponseException problem, Duration after) {
        problem.getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(Math.max(1, after.toSeconds())));
        return problem;
    }
}
