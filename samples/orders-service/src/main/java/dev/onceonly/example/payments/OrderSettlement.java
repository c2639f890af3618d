package dev.onceonly.example.payments;

import dev.onceonly.Attempt;
import dev.onceonly.example.orders.Order;
import dev.onceonly.example.orders.OrderService;
import dev.onceonly.example.orders.OrderStatus;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

/**
 * Moves an order on after the provider settled a payment (paid, refunded) and announces it in the outbox: the one
 * place both do so, for the webhook and for this service's own payments. Joins the caller's transaction, which
 * must be active, so that the order's status and its outbox row commit together.
 */
@Component
class OrderSettlement {

    private final OrderService orders;
    private final PaymentOutbox outbox;
    private final JsonMapper json;

    OrderSettlement(OrderService orders, PaymentOutbox outbox, JsonMapper json) {
        this.orders = orders;
        this.outbox = outbox;
        this.json = json;
    }

    /**
     * Moves {@code order} from the status it was read in to {@code target}, if the state machine allows it and no
     * one moved it meanwhile (a compare-and-set), and then appends {@code order.paid} or {@code order.refunded}.
     *
     * @param source what settled it, added to the event: such as {@code paymentEventId} or {@code paymentKey}
     * @param attempt the idempotent attempt that settles it, whose lineage names the event: a retry or a takeover
     *     of the same request writes an event of the same id, if it writes one at all
     * @return whether this call moved the order (and wrote the event)
     */
    boolean move(Order order, OrderStatus target, String chargeId, Map<String, String> source, Attempt attempt,
            Instant now) {
        if (!order.status().allows(target) || !orders.transition(order.orderId(), order.status(), target)) {
            return false;
        }
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("orderId", order.orderId());
        payload.put("orderNo", order.orderNo());
        payload.put("status", target.name());
        payload.put("amount", order.amount());
        payload.put("currency", order.currency());
        payload.put("chargeId", chargeId);
        payload.putAll(source);
        String eventType = target == OrderStatus.PAID ? "order.paid" : "order.refunded";
        outbox.append(order.orderId(), eventType, attempt.downstreamKey("event:" + eventType),
                json.writeValueAsString(payload), now);
        return true;
    }
}
