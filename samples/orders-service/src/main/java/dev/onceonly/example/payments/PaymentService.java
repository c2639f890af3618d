package dev.onceonly.example.payments;

import dev.onceonly.Attempt;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.StoredResponse;
import dev.onceonly.example.orders.Order;
import dev.onceonly.example.orders.OrderService;
import dev.onceonly.example.orders.OrderStatus;
import dev.onceonly.example.web.Problems;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.json.JsonMapper;

/**
 * Pays an order through the payment provider, once: the work of one attempt of a leased idempotent payment, the
 * same whether a request waits for it or a worker runs it.
 *
 * <p>How one attempt works:
 * <ol>
 *   <li>The attempt's downstream key for the step {@code charge}, the same in every attempt at this payment, is
 *       the provider's {@code Idempotency-Key}: a retry after a 503 or a takeover after a crash asks the provider
 *       again under it, and the provider answers with the charge it made, if it made one, instead of charging
 *       again.</li>
 *   <li>The order is bound to that key before the provider is called (a compare-and-set on
 *       {@code orders.payment_key}): a payment of the same order under another idempotency key gets 409
 *       {@code payment-in-progress} and never reaches the provider.</li>
 *   <li>Charged: if this attempt still holds its lease, the order moves to PAID with its {@code order.paid} outbox
 *       row in one transaction (an order the webhook already marked paid stays so, with no second row); 201.
 *       Declined: 402 {@code payment-declined}, stored for the key, and the order is released for another
 *       payment. No answer: 503 {@code payment-provider-unavailable} with {@code Retry-After}, a retryable outcome
 *       that leaves the payment for a later attempt.</li>
 * </ol>
 */
@RunsWithOnceOnly
@Service
public class PaymentService {

    /** The route of a payment, as the problems' {@code instance} names it. */
    static final String ROUTE = "/api/orders/{orderId}/payments";

    private static final Logger log = LoggerFactory.getLogger(PaymentService.class);

    private final OrderService orders;
    private final PaymentProvider provider;
    private final OrderSettlement settlement;
    private final TransactionTemplate transactions;
    private final Problems problems;
    private final IdempotencyEngine engine;
    private final JsonMapper json;
    private final Clock clock;

    PaymentService(OrderService orders, PaymentProvider provider, OrderSettlement settlement,
            PlatformTransactionManager transactionManager, Problems problems, IdempotencyEngine engine,
            JsonMapper json, Clock clock) {
        this.orders = orders;
        this.provider = provider;
        this.settlement = settlement;
        this.transactions = new TransactionTemplate(transactionManager);
        this.problems = problems;
        this.engine = engine;
        this.json = json;
        this.clock = clock;
    }

    /**
     * Runs one attempt at paying the owner's order.
     *
     * @return the answer as it is stored: 201, 402, 404 or 409 are final; 503 is retryable
     * @throws dev.onceonly.LeaseLostException if the attempt lost its record after the charge; the attempt that took
     *     it over charges under the same key and marks the order paid
     */
    public StoredResponse pay(Attempt attempt, long orderId, String owner) {
        String key = attempt.downstreamKey("charge");
        String instance = ROUTE.replace("{orderId}", Long.toString(orderId));
        Optional<Order> found = orders.find(owner, orderId);
        if (found.isEmpty()) {
            return problems.stored(HttpStatus.NOT_FOUND, "order-not-found", "Order not found",
                    "There is no order " + orderId + " of yours", instance, Map.of());
        }
        Order order = found.get();
        switch (orders.bindPayment(owner, orderId, key)) {
            case BOUND -> { }
            case BOUND_TO_ANOTHER -> {
                return problems.stored(HttpStatus.CONFLICT, "payment-in-progress", "Payment in progress",
                        "Order " + orderId + " is being paid under another Idempotency-Key", instance, Map.of());
            }
            case NOT_PAYABLE -> {
                return problems.stored(HttpStatus.CONFLICT, "order-not-payable", "Order not payable",
                        "Order " + orderId + " does not await payment", instance, Map.of());
            }
            case NOT_FOUND -> {
                return problems.stored(HttpStatus.NOT_FOUND, "order-not-found", "Order not found",
                        "There is no order " + orderId + " of yours", instance, Map.of());
            }
        }
        ChargeResult result = provider.charge(key, order.amount(), order.currency(), "order-" + orderId);
        return switch (result) {
            case ChargeResult.Charged charged -> paid(attempt, order, key, charged.chargeId());
            case ChargeResult.Declined declined -> {
                // The customer may pay another way: under a new key, which the order now accepts.
                orders.releasePayment(orderId, key);
                log.info("Payment of order {} declined by the provider", orderId);
                log.debug("The provider's decline of order {}: {}", orderId, declined.problem());
                yield problems.stored(HttpStatus.PAYMENT_REQUIRED, "payment-declined", "Payment declined",
                        "The payment provider declined the card", instance, Map.of());
            }
            case ChargeResult.Unavailable unavailable -> problems.stored(HttpStatus.SERVICE_UNAVAILABLE,
                    "payment-provider-unavailable", "Payment provider unavailable",
                    "The payment provider did not confirm the charge; retry with the same Idempotency-Key",
                    instance, Map.of(HttpHeaders.RETRY_AFTER, Long.toString(retryAfter(attempt).toSeconds())));
        };
    }

    private StoredResponse paid(Attempt attempt, Order order, String key, String chargeId) {
        // An attempt that lost its record stops here: the one that took it over gets the same charge and marks it.
        attempt.ensureLeaseHeld();
        transactions.executeWithoutResult(status -> orders.findForPayment(order.orderId())
                .filter(current -> current.status() == OrderStatus.PENDING_PAYMENT)
                .ifPresent(current -> settlement.move(current, OrderStatus.PAID, chargeId,
                        Map.of("paymentKey", key), attempt, clock.instant())));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("orderId", order.orderId());
        body.put("chargeId", chargeId);
        body.put("status", OrderStatus.PAID.name());
        return StoredResponse.of(HttpStatus.CREATED.value(), Map.of(
                        HttpHeaders.LOCATION, List.of("/api/orders/" + order.orderId()),
                        HttpHeaders.CONTENT_TYPE, List.of(MediaType.APPLICATION_JSON_VALUE)),
                json.writeValueAsBytes(body), Long.toString(order.orderId()));
    }

    /** When the next attempt may run: the backoff after this attempt's failure, at least a second. */
    private Duration retryAfter(Attempt attempt) {
        Duration backoff = engine.retryPolicy().backoffAfter(attempt.failures() + 1);
        return backoff.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : backoff;
    }
}
