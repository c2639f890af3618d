package dev.onceonly.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceonly.kafka.SharedKafkaBroker;
import dev.onceonly.kafka.outbox.OutboxRelay;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;

/**
 * The order-events consumer as a process of its own, SIGKILLed after it handled every record and before it
 * committed an offset: the restarted consumer gets every record again, and each is recorded once.
 */
@Timeout(240)
class OrderEventsCrashIT {

    private static final String DATABASE = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"
            + "&currentSchema=onceonly_e2e";
    private static final int EVENTS = 20;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private final JdbcClient jdbc = JdbcClient.create(new DriverManagerDataSource(DATABASE));

    @Test
    void consumerKilledBeforeCommittingItsOffsetsGetsTheRecordsAgainAndRecordsEachOnce() throws Exception {
        String topic = "order-events-crash-" + UUID.randomUUID();
        String group = "notifications-crash-" + UUID.randomUUID();
        SharedKafkaBroker.createTopic(topic, 3);
        SharedKafkaBroker.createTopic(topic + "-dlt", 3);
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("spring.datasource.url", DATABASE);
        properties.put("spring.flyway.schemas", "onceonly_e2e");
        properties.put("spring.profiles.active", "events");
        properties.put("spring.kafka.bootstrap-servers", SharedKafkaBroker.bootstrapServers());
        properties.put("onceonly.kafka.outbox.topic", topic);
        properties.put("example.events.consumer", group);
        // Offsets are committed every ten minutes only: the records are handled, and no offset is committed.
        properties.put("spring.kafka.listener.ack-mode", "time");
        properties.put("spring.kafka.listener.ack-time", "10m");

        KafkaTemplate<String, String> kafka = producer();
        try (ServiceProcess service = ServiceProcess.start("events-killed", properties)) {
            List<String> eventIds = new ArrayList<>();
            for (int i = 0; i < EVENTS; i++) {
                String eventId = "evt-" + UUID.randomUUID();
                eventIds.add(eventId);
                ProducerRecord<String, String> record = new ProducerRecord<>(topic, Integer.toString(i),
                        "{\"orderId\":" + (900_000 + i) + ",\"status\":\"PAID\"}");
                record.headers().add(OutboxRelay.EVENT_ID_HEADER, eventId.getBytes(StandardCharsets.UTF_8));
                record.headers().add(OutboxRelay.EVENT_TYPE_HEADER, "order.paid".getBytes(StandardCharsets.UTF_8));
                kafka.send(record).join();
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> recorded(eventIds) == EVENTS);
            assertThat(committedOffsets(group)).isEmpty();

            service.kill();
            service.restart();

            await().atMost(Duration.ofSeconds(90)).until(() -> duplicates(service, group) >= EVENTS);
            assertThat(recorded(eventIds)).isEqualTo(EVENTS);
            assertThat(eventIds).allSatisfy(eventId -> assertThat(jdbc.sql(
                    "SELECT count(*) FROM order_notifications WHERE event_id = ?").param(eventId)
                    .query(Integer.class).single()).isEqualTo(1));
        } finally {
            kafka.destroy();
        }
    }

    private int recorded(List<String> eventIds) {
        return jdbc.sql("SELECT count(*) FROM order_notifications WHERE event_id IN (:ids)").param("ids", eventIds)
                .query(Integer.class).single();
    }

    private static Map<TopicPartition, OffsetAndMetadata> committedOffsets(String group) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                SharedKafkaBroker.bootstrapServers()))) {
            Map<TopicPartition, OffsetAndMetadata> offsets = new LinkedHashMap<>(admin
                    .listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get());
            offsets.values().removeIf(offset -> offset == null);
            return offsets;
        }
    }

    /** The restarted process's count of records its inbox dropped as duplicates, from its metrics endpoint. */
    private double duplicates(ServiceProcess service, String consumer) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(service.uri(
                "/actuator/metrics/onceonly.inbox.messages?tag=consumer:" + consumer + "&tag=outcome:duplicate"))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                        "alice:alice-pass".getBytes(StandardCharsets.UTF_8))).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 404) {
            return 0; // no duplicate counted yet
        }
        Matcher count = Pattern.compile("\"value\":([0-9.E]+)").matcher(response.body());
        return count.find() ? Double.parseDouble(count.group(1)) : 0;
    }

    private static KafkaTemplate<String, String> producer() {
        return new KafkaTemplate<>(new DefaultKafkaProducerFactory<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafkaBroker.bootstrapServers()),
                new StringSerializer(), new StringSerializer()));
    }
}
