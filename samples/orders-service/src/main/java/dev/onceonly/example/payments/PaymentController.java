package dev.onceonly.example.payments;

import dev.onceonly.Attempt;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.example.security.SecurityConfiguration;
import dev.onceonly.example.web.Problems;
import dev.onceonly.example.web.StoredResponses;
import dev.onceonly.spring.web.AcceptedRequest;
import dev.onceonly.spring.web.Idempotent;
import dev.onceonly.spring.web.servlet.OperationStatus;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.Authentication;
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
 * Both are one operation, {@value PayOrderOperation#NAME}: a key is one payment, whichever style its first request
 * and its retries take; a retry gets the first answer, or 202 while the payment runs.
 * Both need an {@code Idempotency-Key} and an empty body (or {@code {}}), and answer alike: 201 paid, 402
 * declined, 409 for an order that another payment binds or that does not await payment, 503 while the provider
 * does not answer.
 */
@RunsWithOnceOnly
@RestController
class PaymentController {

    /** The status resource of an asynchronous payment, by the key it was sent with. */
    static final String OPERATIONS_ROUTE = "/api/payment-operations/{key}";

    private final PaymentService payments;
    private final OperationStatus operations;
    private final Problems problems;

    PaymentController(PaymentService payments, OperationStatus operations, Problems problems) {
        this.payments = payments;
        this.operations = operations;
        this.problems = problems;
    }

    @PostMapping(PaymentService.ROUTE)
    @Idempotent(value = PayOrderOperation.NAME, mode = IdempotencyMode.LEASED)
    ResponseEntity<byte[]> pay(@PathVariable long orderId, Attempt attempt, Authentication user,
            @RequestBody(required = false) @Nullable Map<String, Object> body) {
        requireNoMembers(body);
        return StoredResponses.toEntity(payments.pay(attempt, orderId, SecurityConfiguration.owner(user)), false);
    }

    /** The same operation as {@link #pay}, so that one key is one payment whichever form its answers take. */
    @PostMapping(path = PaymentService.ROUTE, headers = "Prefer=respond-async")
    @Idempotent(value = PayOrderOperation.NAME, asynchronous = true)
    ResponseEntity<byte[]> payAsynchronously(@PathVariable long orderId, AcceptedRequest request,
            Authentication user, @RequestBody(required = false) @Nullable Map<String, Object> body) {
        requireNoMembers(body);
        return request.accept(new PayOrderOperation.Payload(orderId, SecurityConfiguration.owner(user)),
                OPERATIONS_ROUTE);
    }

    @GetMapping(OPERATIONS_ROUTE)
    ResponseEntity<byte[]> operation(@PathVariable String key, HttpServletRequest request) {
        return operations.of(request, PayOrderOperation.NAME, key);
    }

    private void requireNoMembers(@Nullable Map<String, Object> body) {
        if (body != null && !body.isEmpty()) {
            throw problems.of(HttpStatus.BAD_REQUEST, "invalid-payment-request", "Invalid payment request",
                    "A payment takes no body, or {}: the order says what is paid");
        }
    }
}
