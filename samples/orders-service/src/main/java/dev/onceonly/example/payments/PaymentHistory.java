package dev.onceonly.example.payments;

import dev.onceonly.example.orders.OrderStatus;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The payment events that took effect on orders ({@code payment_events}): one row per applied transition or
 * recorded decline. Writes join the webhook's transaction.
 */
@Repository
class PaymentHistory {

    private final JdbcClient jdbc;

    PaymentHistory(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Whether the event already took effect: a redelivery after its idempotency record expired. */
    boolean contains(String eventId) {
        return jdbc.sql("SELECT count(*) FROM payment_events WHERE event_id = ?")
                .param(eventId)
                .query(Long.class)
                .single() > 0;
    }

    void record(PaymentEvent event, PaymentEventType type, OrderStatus from, OrderStatus to, Instant receivedAt) {
        PaymentEvent.Data data = event.data();
        jdbc.sql("INSERT INTO payment_events (event_id, order_id, event_type, charge_id, from_status, to_status,"
                        + " amount, currency, occurred_at, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                .params(event.id(), data.orderId(), type.wireName(), data.chargeId(), from.name(), to.name(),
                        data.amount(), data.currency(), Timestamp.from(event.created().truncatedTo(ChronoUnit.MICROS)),
                        Timestamp.from(receivedAt.truncatedTo(ChronoUnit.MICROS)))
                .update();
    }
}
