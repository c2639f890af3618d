package dev.onceonly.example.orders;

import java.util.Set;

/**
 * Where an order stands, and where it may go from there: {@code PENDING_PAYMENT → PAID → REFUNDED}. Nothing moves
 * backwards, so an event that arrives late (a payment after its refund) can never undo a later state.
 */
public enum OrderStatus {
    PENDING_PAYMENT,
    PAID,
    REFUNDED;

    /** Whether an order in this status may move to {@code next}. */
    public boolean allows(OrderStatus next) {
        return successors().contains(next);
    }

    private Set<OrderStatus> successors() {
        return switch (this) {
            case PENDING_PAYMENT -> Set.of(PAID);
            case PAID -> Set.of(REFUNDED);
            case REFUNDED -> Set.of();
        };
    }
}
