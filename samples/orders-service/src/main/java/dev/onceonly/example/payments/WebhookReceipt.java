package dev.onceonly.example.payments;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.onceonly.example.orders.OrderStatus;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The answer to a webhook delivery, always with a 2xx status: the provider stops redelivering an event once it
 * got one, whether the event took effect or was ignored. A redelivery gets this receipt again, byte for byte.
 *
 * @param eventId the event's id
 * @param outcome what the event did
 * @param reason why it was ignored, a stable slug; absent otherwise
 * @param orderId the order it names
 * @param status the order's status after the event; absent for an unknown order
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record WebhookReceipt(String eventId, Outcome outcome, @Nullable String reason, @Nullable Long orderId,
        @Nullable OrderStatus status) {

    /** What an event did. */
    enum Outcome {
        /** Moved the order on. */
        APPLIED,
        /** Recorded in the order's payment history without moving it (a declined payment). */
        RECORDED,
        /** Changed nothing. */
        IGNORED;

        @JsonValue
        String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    static WebhookReceipt took(PaymentEvent event, Outcome outcome, OrderStatus status) {
        return new WebhookReceipt(event.id(), outcome, null, event.data().orderId(), status);
    }

    static WebhookReceipt ignored(PaymentEvent event, String reason, @Nullable OrderStatus status) {
        return new WebhookReceipt(event.id(), Outcome.IGNORED, reason, event.data().orderId(), status);
    }
}
