package dev.onceonly.example.orders;

/**
 * The answer to {@code POST /api/orders}.
 *
 * @param orderId the order's id, also in the {@code Location} header
 * @param orderNo the order's unique number, for people
 * @param status the order's status
 */
public record OrderCreated(long orderId, String orderNo, OrderStatus status) {
}
