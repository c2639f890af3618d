package dev.onceonly.example.events;

import java.time.Clock;
import org.apache.kafka.clients.admin.NewTopic;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.kafka.config.TopicBuilder;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.util.backoff.ExponentialBackOff;
import tools.jackson.databind.json.JsonMapper;

/**
 * Order events over Kafka, on with {@code example.events.enabled} (the {@code events} profile): the starter's relay
 * publishes {@code payment_outbox} to {@code onceonly.kafka.outbox.topic}, and {@link OrderNotifications} consumes
 * it. A record that keeps failing, or cannot be read at all, ends on the topic's dead-letter topic.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty("example.events.enabled")
class OrderEventsConfiguration {

    /** Partitions of the events topic: an order's events share one (the record key is the order id). */
    private static final int PARTITIONS = 3;

    @Bean
    NewTopic orderEventsTopic(@Value("${onceonly.kafka.outbox.topic}") String topic) {
        return TopicBuilder.name(topic).partitions(PARTITIONS).build();
    }

    @Bean
    NewTopic orderEventsDeadLetterTopic(@Value("${onceonly.kafka.outbox.topic}") String topic) {
        return TopicBuilder.name(topic + "-dlt").partitions(PARTITIONS).build();
    }

    /**
     * Retries a record whose handling fails for about half a minute, then parks it on the dead-letter topic;
     * unreadable events go there at once. The starter adds records without a key to those, and retries a record
     * for which nothing ran (the database away, the first delivery still in progress elsewhere) for as long as that
     * lasts, never parking it.
     */
    @Bean
    DefaultErrorHandler orderEventsErrorHandler(KafkaTemplate<?, ?> kafka) {
        ExponentialBackOff backOff = new ExponentialBackOff(500, 2);
        backOff.setMaxElapsedTime(30_000);
        DefaultErrorHandler handler = new DefaultErrorHandler(new DeadLetterPublishingRecoverer(kafka), backOff);
        handler.addNotRetryableExceptions(MalformedOrderEventException.class);
        return handler;
    }

    @Bean
    OrderNotifications orderNotifications(JdbcClient jdbc, JsonMapper json, Clock clock) {
        return new OrderNotifications(jdbc, json, clock);
    }
}
