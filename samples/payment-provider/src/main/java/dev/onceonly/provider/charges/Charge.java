package dev.onceonly.provider.charges;

import java.time.Instant;

/**
 * A charge the provider made, as it is answered and listed.
 *
 * @param id        {@code ch_} and a random UUID
 * @param key       the {@code Idempotency-Key} it was made under
 * @param amount    in minor units of {@code currency}
 * @param reference the client's reference, such as {@code order-42}
 */
public record Charge(String id, String key, long amount, String currency, String reference, ChargeStatus status,
        Instant created) {

    Charge refunded() {
        return new Charge(id, key, amount, currency, reference, ChargeStatus.REFUNDED, created);
    }
}
