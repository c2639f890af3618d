package dev.onceonly.example.payments;

import dev.onceonly.Attempt;
import dev.onceonly.example.orders.Order;
import dev.onceonly.example.orders.OrderService;
import dev.onceonly.example.orders.OrderStatus;
import dev.onceonly.example.payments.WebhookReceipt.Outcome;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Applies one payment event to its order, inside the transaction of the event's idempotent execution: the
 * order's new status (through {@link OrderSettlement}), its history row and its outbox row commit together or not at
 * all.
 *
 * <p>The order state machine is the second guard after the event id: an event the order's status does not allow
 * (a payment after its refund, a second payment under another event id) changes nothing and is answered as
 * ignored, so the provider stops redelivering it. So are events for unknown orders, for another amount or
 * currency than the order's, and of types this service does not act on.
 */
@Component
class PaymentEventHandler {

    private static final Logger log = LoggerFactory.getLogger(PaymentEventHandler.class);

    private final OrderService orders;
    private final PaymentHistory history;
    private final OrderSettlement settlement;
    private final Clock clock;

    PaymentEventHandler(OrderService orders, PaymentHistory history, OrderSettlement settlement, Clock clock) {
        this.orders = orders;
        this.history = history;
        this.settlement = settlement;
        this.clock = clock;
    }

    /** @param attempt the attempt of the event's delivery, whose lineage names the order event it may write */
    WebhookReceipt apply(PaymentEvent event, Attempt attempt) {
        Optional<PaymentEventType> known = PaymentEventType.fromWire(event.type());
        if (known.isEmpty()) {
            log.info("Payment event {} of type {} ignored: not a type this service acts on", event.id(),
                    event.type());
            return WebhookReceipt.ignored(event, "unsupported-event-type", null);
        }
        PaymentEventType type = known.get();
        PaymentEvent.Data data = event.data();
        Optional<Order> found = orders.findForPayment(data.orderId());
        if (found.isEmpty()) {
            // Answered 2xx all the same: redelivering will not make the order exist.
            log.info("Payment event {} ({}) ignored: no order {}", event.id(), type.wireName(), data.orderId());
            return WebhookReceipt.ignored(event, "unknown-order", null);
        }
        Order order = found.get();
        if (history.contains(event.id())) {
            return WebhookReceipt.ignored(event, "already-applied", order.status());
        }
        if (order.amount() != data.amount() || !order.currency().equals(data.currency())) {
            log.info("Payment event {} ({}) ignored: its amount is not the amount of order {}", event.id(),
                    type.wireName(), order.orderId());
            return WebhookReceipt.ignored(event, "amount-mismatch", order.status());
        }
        Instant now = clock.instant();
        if (type == PaymentEventType.DECLINED) {
            if (order.status() != OrderStatus.PENDING_PAYMENT) {
                return WebhookReceipt.ignored(event, "status-not-applicable", order.status());
            }
            history.record(event, type, order.status(), order.status(), now);
            return WebhookReceipt.took(event, Outcome.RECORDED, order.status());
        }
        OrderStatus target = type.target();
        // A concurrent event may move the order between the read and the compare-and-set; then this one is stale.
        if (!settlement.move(order, target, data.chargeId(), Map.of("paymentEventId", event.id()), attempt,
                now)) {
            return WebhookReceipt.ignored(event, "status-not-applicable", order.status());
        }
        history.record(event, type, order.status(), target, now);
        return WebhookReceipt.took(event, Outcome.APPLIED, target);
    }
}
