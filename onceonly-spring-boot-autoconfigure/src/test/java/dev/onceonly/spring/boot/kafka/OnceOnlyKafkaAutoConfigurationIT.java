package dev.onceonly.spring.boot.kafka;

import static dev.onceonly.spring.boot.StartupFailure.assertStartupFailure;
import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.kafka.inbox.IdempotentListener;
import dev.onceonly.kafka.inbox.IdempotentListeners;
import dev.onceonly.kafka.inbox.ListenerDedupe;
import dev.onceonly.kafka.inbox.MessageKeyException;
import dev.onceonly.kafka.outbox.OutboxPoller;
import dev.onceonly.kafka.outbox.OutboxRelay;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.boot.jdbc.OnceOnlyJdbcAutoConfiguration;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;
import org.springframework.aop.Advisor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.ProducerFactory;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.RecordInterceptor;
import org.springframework.util.backoff.FixedBackOff;

/** What the starter wires for Kafka, against the real PostgreSQL and Redis (no broker is contacted). */
class OnceOnlyKafkaAutoConfigurationIT {

    private static final String URL = System.getProperty("onceonly.test.postgres.url",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class, OnceOnlyJdbcAutoConfiguration.class,
                    OnceOnlyAutoConfiguration.class, OnceOnlyKafkaAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=" + URL);

    @Test
    void listenersAdviceContainerFactoriesAndErrorHandlersArePrepared() {
        runner.withBean(ConcurrentKafkaListenerContainerFactory.class, ConcurrentKafkaListenerContainerFactory::new)
                .withBean(DefaultErrorHandler.class, () -> new DefaultErrorHandler(new FixedBackOff(0, 5)))
                .run(context -> {
                    assertThat(context).hasSingleBean(IdempotentListeners.class).hasSingleBean(Advisor.class)
                            .doesNotHaveBean(OutboxRelay.class);
                    RecordInterceptor<?, ?> interceptor = context.getBean(ConcurrentKafkaListenerContainerFactory.class)
                            .getRecordInterceptor();
                    assertThat(interceptor).isNotNull();
                    // Marked not retryable (removing a classification answers what it was).
                    assertThat(context.getBean(DefaultErrorHandler.class).removeClassification(
                            MessageKeyException.class)).isFalse();
                });
    }

    @Test
    void outboxTableBringsTheRelayAndItsMetrics() {
        JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(URL));
        jdbc.execute("CREATE TABLE IF NOT EXISTS onceonly_it_outbox (id bigserial PRIMARY KEY, aggregate_id bigint "
                + "NOT NULL, event_type varchar(64) NOT NULL, event_id varchar(64) NOT NULL, payload jsonb NOT NULL, "
                + "created_at timestamptz NOT NULL, published_at timestamptz)");
        jdbc.update("DELETE FROM onceonly_it_outbox");
        jdbc.update("INSERT INTO onceonly_it_outbox (aggregate_id, event_type, event_id, payload, created_at) "
                + "VALUES (1, 'order.paid', 'e-1', '{}', now() - interval '1 hour')");
        runner.withPropertyValues("onceonly.kafka.outbox.table=onceonly_it_outbox",
                        "onceonly.kafka.outbox.topic=order-events")
                // No broker is contacted: nothing is sent while the relay's poller is stopped.
                .withBean(ProducerFactory.class, () -> new DefaultKafkaProducerFactory<>(Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1")))
                .run(context -> {
                    context.getBean(OutboxPoller.class).stop();
                    SimpleMeterRegistry registry = new SimpleMeterRegistry();
                    context.getBean(MeterBinder.class).bindTo(registry);

                    assertThat(registry.get("onceonly.outbox.oldest.age").tag("table", "onceonly_it_outbox").gauge()
                            .value()).isGreaterThanOrEqualTo(3_600);
                    assertThat(registry.get("onceonly.outbox.records").tag("outcome", "published").functionCounter()
                            .count()).isZero();
                });
    }

    @Test
    void outboxTableWithoutATopicStopsStartup() {
        runner.withPropertyValues("onceonly.kafka.outbox.table=payment_outbox")
                .run(context -> assertStartupFailure(context).hasMessageContaining("onceonly.kafka.outbox.topic"));
    }

    @Test
    void listenerWithAWrongSettingStopsStartupNamingItsMethodAndSetting() {
        runner.withBean(BadRetention.class, BadRetention::new)
                .run(context -> assertStartupFailure(context).hasMessageContaining("BadRetention.on")
                        .hasMessageContaining("retention").hasMessageContaining("'fortnight'"));
        runner.withBean(MissingKeyBean.class, MissingKeyBean::new)
                .run(context -> assertStartupFailure(context).hasMessageContaining("MissingKeyBean.on")
                        .hasMessageContaining("orderEventKey"));
    }

    @Test
    void outboxSettingsOutOfRangeStopStartupNamingTheProperty() {
        runner.withPropertyValues("onceonly.kafka.outbox.batch-size=0")
                .run(context -> assertStartupFailure(context).hasMessageContaining("onceonly.kafka.outbox.batch-size"));
        runner.withPropertyValues("onceonly.kafka.outbox.poll-interval=10s", "onceonly.kafka.outbox.max-backoff=1s")
                .run(context -> assertStartupFailure(context).hasMessageContaining("onceonly.kafka.outbox.max-backoff"));
    }

    @Test
    void withoutAnErrorHandlerOfTheApplicationsContainersGetAPreparedOne() {
        runner.run(context -> assertThat(context.getBean(DefaultErrorHandler.class).removeClassification(
                MessageKeyException.class)).isFalse());
    }

    @Test
    void redisTtlListenersDedupeThroughTheApplicationsRedisConnection() {
        LettuceConnectionFactory connections = new LettuceConnectionFactory(new RedisStandaloneConfiguration(
                "127.0.0.1", Integer.getInteger("onceonly.test.redis.port", 6379)));
        connections.afterPropertiesSet();
        connections.start();
        try {
            runner.withBean(StringRedisTemplate.class, () -> new StringRedisTemplate(connections)).run(context -> {
                ListenerDedupe dedupe = context.getBean(ListenerDedupe.class);
                AtomicInteger sent = new AtomicInteger();
                String key = "evt-" + UUID.randomUUID();

                assertThat(dedupe.runOnce("sms", key, Duration.ofMinutes(5), sent::incrementAndGet)).isTrue();
                assertThat(dedupe.runOnce("sms", key, Duration.ofMinutes(5), sent::incrementAndGet)).isFalse();
                assertThat(sent).hasValue(1);
            });
        } finally {
            connections.destroy();
        }
    }

    static class BadRetention {
        @IdempotentListener(retention = "fortnight")
        public void on(String payload) {
            // never called: startup stops first
        }
    }

    static class MissingKeyBean {
        @IdempotentListener(key = "orderEventKey")
        public void on(String payload) {
            // never called: startup stops first
        }
    }
}
