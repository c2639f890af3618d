package dev.onceonly.example.payments;

import dev.onceonly.example.orders.OrderStatus;
import java.util.Arrays;
import java.util.Optional;

/** The events of the provider this service acts on, and the order status each one leads to. */
enum PaymentEventType {
    SUCCEEDED("payment.succeeded", OrderStatus.PAID),
    /** Leaves the order waiting for payment: the customer may pay another way. */
    DECLINED("payment.declined", OrderStatus.PENDING_PAYMENT),
    REFUNDED("payment.refunded", OrderStatus.REFUNDED);

    private final String wireName;
    private final OrderStatus target;

    PaymentEventType(String wireName, OrderStatus target) {
        this.wireName = wireName;
        this.target = target;
    }

    /** The type as the provider names it; empty for a type this service does not act on. */
    static Optional<PaymentEventType> fromWire(String wireName) {
        return Arrays.stream(values()).filter(type -> type.wireName.equals(wireName)).findFirst();
    }

    String wireName() {
        return wireName;
    }

    /** The status an order is in after this event took effect. */
    OrderStatus target() {
        return target;
    }
}
