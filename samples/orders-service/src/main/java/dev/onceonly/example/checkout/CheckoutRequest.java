package dev.onceonly.example.checkout;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.Size;
import org.jspecify.annotations.Nullable;

/**
 * The body of {@code POST /api/checkout}.
 *
 * @param formToken the token the form was rendered with; none only while Redis was unavailable
 * @param skuId the product
 * @param quantity how many, 1 to 100
 */
public record CheckoutRequest(@Nullable @Size(max = 64) String formToken, @NotNull @Positive Long skuId,
        @NotNull @Min(1) @Max(100) Integer quantity) {
}
