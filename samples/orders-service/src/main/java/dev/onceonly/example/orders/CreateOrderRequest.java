package dev.onceonly.example.orders;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;

/**
 * The body of {@code POST /api/orders}.
 *
 * @param skuId the product
 * @param quantity how many, 1 to 100
 */
public record CreateOrderRequest(@NotNull @Positive Long skuId, @NotNull @Min(1) @Max(100) Integer quantity) {
}
