package dev.onceonly.docs;

import dev.onceonly.kafka.inbox.IdempotentListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

@Component
public class OrderNotifications {

    private final JdbcTemplate jdbc;

    public OrderNotifications(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @KafkaListener(id = "order-notifications", topics = "order-events")
    @IdempotentListener // the record's event id is its key: once per event, in one transaction with the inbox record
    public void on(ConsumerRecord<String, String> record) {
        jdbc.update("INSERT INTO notifications (order_event) VALUES (?)", record.value());
    }
}
