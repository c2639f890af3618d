package dev.onceonly.spring.boot.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceonly.jdbc.JdbcSchema;
import dev.onceonly.jdbc.PostgresDialect;
import dev.onceonly.kafka.SharedKafkaBroker;
import dev.onceonly.kafka.inbox.IdempotentListener;
import dev.onceonly.kafka.inbox.InboxObserver;
import dev.onceonly.kafka.outbox.OutboxRelay;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.boot.jdbc.OnceOnlyJdbcAutoConfiguration;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;

/**
 * The inbox while its database restarts (issue 39): records produced while a PostgreSQL of the test's own is down
 * all take effect once after it is back, none skipped. Spring Kafka's default error handler, which the starter
 * gives the listener containers, retried a record ten times at once and then committed past it.
 */
@Timeout(180)
class InboxDatabaseRestartIT {

    private static final int RECORDS_DURING_OUTAGE = 5;
    /** Longer than the default handler's ten tries, each of which waits the pool's connection timeout. */
    private static final Duration OUTAGE = Duration.ofSeconds(8);

    @Test
    void recordsProducedWhileTheDatabaseRestartsAllTakeEffectOnceAfterItIsBack() throws Exception {
        String topic = "inbox-restart-" + UUID.randomUUID();
        SharedKafkaBroker.createTopic(topic, 1);
        Path data = Files.createTempDirectory("onceonly-inbox-restart");
        int port = freePort();
        EmbeddedPostgres postgres = start(data, port);
        try {
            String url = "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
            JdbcTemplate jdbc = new JdbcTemplate(postgres.getPostgresDatabase());
            JdbcSchema.migrate(postgres.getPostgresDatabase(), new PostgresDialect());
            jdbc.execute("CREATE TABLE restart_effect (event_id varchar(64) NOT NULL)");
            FailureCount failures = new FailureCount();
            KafkaTemplate<String, String> producer = producer();
            try {
                runner(url, topic).withBean(FailureCount.class, () -> failures).run(context -> {
                    assertThat(context).hasNotFailed();
                    String before = send(producer, topic);
                    await().atMost(Duration.ofSeconds(60)).until(() -> effects(jdbc, before) == 1);

                    postgres.close();
                    List<String> during = new ArrayList<>();
                    for (int i = 0; i < RECORDS_DURING_OUTAGE; i++) {
                        during.add(send(producer, topic));
                    }
                    Instant down = Instant.now();
                    await().atMost(Duration.ofSeconds(60)).until(() -> failures.count.get() >= 3
                            && Duration.between(down, Instant.now()).compareTo(OUTAGE) >= 0);
                    EmbeddedPostgres restarted = start(data, port);
                    try {
                        JdbcTemplate back = new JdbcTemplate(restarted.getPostgresDatabase());

                        await().atMost(Duration.ofSeconds(90)).until(() -> during.stream()
                                .allMatch(eventId -> effects(back, eventId) >= 1));
                        assertThat(during).allSatisfy(eventId -> assertThat(effects(back, eventId)).isEqualTo(1));
                        assertThat(effects(back, before)).isEqualTo(1);
                    } finally {
                        restarted.close();
                    }
                });
            } finally {
                producer.destroy();
            }
        } finally {
            postgres.close();
        }
    }

    private static ApplicationContextRunner runner(String url, String topic) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
                        TransactionAutoConfiguration.class, KafkaAutoConfiguration.class,
                        OnceOnlyJdbcAutoConfiguration.class, OnceOnlyAutoConfiguration.class,
                        OnceOnlyKafkaAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + url,
                        // A down database fails each try quickly rather than after Hikari's default 30 s.
                        "spring.datasource.hikari.connection-timeout=250",
                        "spring.kafka.bootstrap-servers=" + SharedKafkaBroker.bootstrapServers(),
                        "spring.kafka.consumer.auto-offset-reset=earliest",
                        "spring.kafka.consumer.group-id=restart-" + UUID.randomUUID(),
                        "test.topic=" + topic)
                .withBean(RestartListener.class);
    }

    /** Counts the records the inbox saw fail. */
    static final class FailureCount implements InboxObserver {

        final AtomicInteger count = new AtomicInteger();

        @Override
        public void observed(String consumer, Outcome outcome) {
            if (outcome == Outcome.FAILED) {
                count.incrementAndGet();
            }
        }
    }

    static class RestartListener {

        private final JdbcTemplate jdbc;

        RestartListener(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @KafkaListener(topics = "${test.topic}")
        @IdempotentListener
        void on(ConsumerRecord<String, String> record) {
            jdbc.update("INSERT INTO restart_effect (event_id) VALUES (?)", record.value());
        }
    }

    private static String send(KafkaTemplate<String, String> producer, String topic) {
        String eventId = "evt-" + UUID.randomUUID();
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, "order-1", eventId);
        record.headers().add(OutboxRelay.EVENT_ID_HEADER, eventId.getBytes(StandardCharsets.UTF_8));
        producer.send(record).join();
        return eventId;
    }

    private static int effects(JdbcTemplate jdbc, String eventId) {
        Integer count = jdbc.queryForObject("SELECT count(*) FROM restart_effect WHERE event_id = ?", Integer.class,
                eventId);
        return count == null ? 0 : count;
    }

    /** The embedded server on {@code data}, which keeps its cluster between runs, so a second start is a restart. */
    private static EmbeddedPostgres start(Path data, int port) throws IOException {
        return EmbeddedPostgres.builder().setDataDirectory(data).setCleanDataDirectory(false).setPort(port).start();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static KafkaTemplate<String, String> producer() {
        return new KafkaTemplate<>(new DefaultKafkaProducerFactory<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafkaBroker.bootstrapServers()),
                new StringSerializer(), new StringSerializer()));
    }
}
