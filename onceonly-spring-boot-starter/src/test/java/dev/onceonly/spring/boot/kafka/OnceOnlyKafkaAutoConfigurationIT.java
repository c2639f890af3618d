package dev.onceonly.spring.boot.kafka;

import static dev.onceonly.spring.boot.StartupFailure.assertStartupFailure;
import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.kafka.inbox.IdempotentListener;
import dev.onceonly.kafka.inbox.IdempotentListeners;
import dev.onceonly.kafka.inbox.ListenerDedupe;
import dev.onceonly.kafka.inbox.MessageKeyException;
import dev.onceonly.kafka.outbox.OutboxRelay;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.boot.jdbc.OnceOnlyJdbcAutoConfiguration;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.aop.Advisor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
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
