package dev.onceonly.example.orders;

import java.time.Instant;

/**
 * An order as the API shows it.
 *
 * @param orderId the order's id
 * @param orderNo the order's unique number
 * @param skuId the product
 * @param quantity how many
 * @param amount what it costs, in minor units of {@code currency} (cents)
 * @param currency the ISO 4217 code of the amount
 * @param status where the order stands
 * @param createdAt when it was placed
 */
public record Order(long orderId, String orderNo, long skuId, int quantity, long amount, String currency,
        OrderStatus status, Instant createdAt) {
}
