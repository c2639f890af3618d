package dev.onceonly.provider.webhooks;

import dev.onceonly.provider.charges.Charge;
import dev.onceonly.provider.charges.ChargeEvents;
import java.time.Instant;

/**
 * The body of a webhook. Every delivery of one event carries the same bytes and the same {@code id}: receivers
 * deduplicate by it.
 *
 * @param id {@code evt_} and a random UUID
 */
record WebhookEvent(String id, ChargeEvents.Type type, Instant created, Data data) {

    /** The charge the event is about. */
    record Data(String chargeId, String reference, long amount, String currency, String key) {

        static Data of(Charge charge) {
            return new Data(charge.id(), charge.reference(), charge.amount(), charge.currency(), charge.key());
        }
    }
}
