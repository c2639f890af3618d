package dev.onceonly.example.events;

import dev.onceonly.kafka.inbox.IdempotentListener;
import dev.onceonly.kafka.outbox.OutboxRelay;
import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.kafka.annotation.KafkaListener;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Records a notification for every order event the outbox relay published: an effect that is not idempotent by
 * itself (an insert), made so by {@link IdempotentListener} alone. A redelivered or republished event (the same
 * event id) records nothing more.
 */
public class OrderNotifications {

    private final JdbcClient jdbc;
    private final JsonMapper json;
    private final Clock clock;

    OrderNotifications(JdbcClient jdbc, JsonMapper json, Clock clock) {
        this.jdbc = jdbc;
        this.json = json;
        this.clock = clock;
    }

    /** The consumer group, and so the inbox's consumer, is the listener's id: {@code example.events.consumer}. */
    @KafkaListener(id = "${example.events.consumer}", topics = "${onceonly.kafka.outbox.topic}")
    @IdempotentListener
    public void on(ConsumerRecord<String, String> record) {
        long orderId = orderIdOf(record.value());
        jdbc.sql("INSERT INTO order_notifications (order_id, event_type, event_id, recorded_at) VALUES (?, ?, ?, ?)")
                .params(orderId, header(record, OutboxRelay.EVENT_TYPE_HEADER),
                        header(record, OutboxRelay.EVENT_ID_HEADER),
                        Timestamp.from(clock.instant().truncatedTo(ChronoUnit.MICROS)))
                .update();
    }

    private long orderIdOf(String payload) {
        JsonNode orderId;
        try {
            orderId = json.readTree(payload).path("orderId");
        } catch (JacksonException e) {
            throw new MalformedOrderEventException("the order event is not JSON");
        }
        if (!orderId.canConvertToLong()) {
            throw new MalformedOrderEventException("the order event has no numeric orderId");
        }
        return orderId.asLong();
    }

    private static String header(ConsumerRecord<String, String> record, String name) {
        Header header = record.headers().lastHeader(name);
        if (header == null || header.value() == null) {
            throw new MalformedOrderEventException("the order event has no " + name + " header");
        }
        return new String(header.value(), StandardCharsets.UTF_8);
    }
}
