package dev.onceonly.example.accounts;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;

/**
 * The body of {@code POST /api/accounts/{id}/debit}.
 *
 * @param amount how much to take, in minor units of the account's currency; at most 1,000,000,000
 * @param expectedVersion the account's version the client last read: the debit applies only if it is still current
 */
public record DebitRequest(@NotNull @Positive @Max(1_000_000_000L) Long amount,
        @NotNull @PositiveOrZero Long expectedVersion) {
}
