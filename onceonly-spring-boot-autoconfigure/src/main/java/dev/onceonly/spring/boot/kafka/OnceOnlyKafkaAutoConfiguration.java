package dev.onceonly.spring.boot.kafka;

import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.RequestInProgressException;
import dev.onceonly.TransactionRunner;
import dev.onceonly.kafka.inbox.IdempotentListener;
import dev.onceonly.kafka.inbox.IdempotentListeners;
import dev.onceonly.kafka.inbox.InboxObserver;
import dev.onceonly.kafka.inbox.ListenerDedupe;
import dev.onceonly.kafka.inbox.MessageKeyException;
import dev.onceonly.kafka.outbox.OutboxPoller;
import dev.onceonly.kafka.outbox.OutboxRelay;
import dev.onceonly.redis.ShortTtlDedupe;
import dev.onceonly.spi.Purgeable;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.boot.OnceOnlyClock;
import dev.onceonly.spring.boot.jdbc.OnceOnlyJdbcAutoConfiguration;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Clock;
import java.util.Locale;
import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.aop.Advisor;
import org.springframework.aop.framework.autoproxy.AutoProxyUtils;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.kafka.config.AbstractKafkaListenerContainerFactory;
import org.springframework.kafka.core.ProducerFactory;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.util.ClassUtils;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * Idempotent Kafka listeners, when onceonly-kafka and Spring Kafka are on the class path and the store has a
 * {@link TransactionRunner} (the JDBC store's): {@link IdempotentListener} methods run through the inbox in the
 * store's transactions, every listener container factory tells them their record, and {@code DefaultErrorHandler}
 * beans learn which failures not to retry and how long to retry a record in progress elsewhere. With
 * {@code onceonly.kafka.outbox.table} set, the outbox relay runs too.
 */
@AutoConfiguration(after = {OnceOnlyAutoConfiguration.class, OnceOnlyJdbcAutoConfiguration.class}, afterName = {
        "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration",
        "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration"})
@ConditionalOnClass({IdempotentListeners.class, AbstractKafkaListenerContainerFactory.class})
@ConditionalOnBooleanProperty(name = "onceonly.enabled", matchIfMissing = true)
@EnableConfigurationProperties(OnceOnlyKafkaProperties.class)
public class OnceOnlyKafkaAutoConfiguration {

    /** The first pause before a record that nothing ran for is tried again. */
    private static final long FIRST_PAUSE_MILLIS = 500;
    /**
     * The longest pause between two tries of such a record: well under {@code max.poll.interval.ms} (five minutes by
     * default), since the container's thread waits out the pause, and short enough to notice a store that is back.
     */
    private static final long LONGEST_PAUSE_MILLIS = 10_000;

    @Bean
    @ConditionalOnBean({IdempotencyEngine.class, TransactionRunner.class})
    IdempotentListeners onceonlyIdempotentListeners(IdempotencyEngine engine, TransactionRunner transactions,
            BeanFactory beans, OnceOnlyKafkaProperties properties, ObjectProvider<InboxObserver> observer,
            ObjectProvider<ListenerDedupe> dedupe) {
        return new IdempotentListeners(engine, transactions, beans, properties.inboxRetention(),
                properties.eventIdHeader(), observer.getIfAvailable(() -> InboxObserver.NONE),
                dedupe.getIfAvailable());
    }

    /**
     * Redis-TTL listeners' keys, with onceonly-redis on the class path. The Redis connection is looked up on first
     * use, so that the order of auto-configurations does not matter.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({ShortTtlDedupe.class, StringRedisTemplate.class})
    static class RedisDedupeConfiguration {

        @Bean
        @ConditionalOnMissingBean
        ListenerDedupe onceonlyListenerDedupe(ObjectProvider<StringRedisTemplate> redis,
                OnceOnlyKafkaProperties properties) {
            return new RedisListenerDedupe(redis, properties.redisDedupeLease());
        }
    }

    /**
     * An infrastructure advisor, which the auto-proxy creator of Spring's transaction management applies too. It
     * resolves the listeners only on the first call: advisors are created before ordinary beans, and the engine
     * must not be pulled in that early.
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnBean({IdempotencyEngine.class, TransactionRunner.class})
    static Advisor onceonlyIdempotentListenerAdvisor(ObjectProvider<IdempotentListeners> listeners) {
        return IdempotentListeners.advisor(invocation -> listeners.getObject().invoke(invocation));
    }

    /**
     * Checks every {@link IdempotentListener} method once all singletons exist, so that a wrong setting stops
     * startup rather than failing each record.
     */
    @Bean
    @ConditionalOnBean({IdempotencyEngine.class, TransactionRunner.class})
    static SmartInitializingSingleton onceonlyIdempotentListenerCheck(ConfigurableListableBeanFactory beans,
            ObjectProvider<IdempotentListeners> listeners) {
        return () -> {
            IdempotentListeners checker = listeners.getObject();
            for (String name : beans.getBeanDefinitionNames()) {
                if (ScopedProxyUtils.isScopedTarget(name)) {
                    continue; // checked through its proxy's definition
                }
                Class<?> type;
                try {
                    // The class behind a proxy (also a JDK one), without creating anything.
                    type = AutoProxyUtils.determineTargetClass(beans, name);
                } catch (RuntimeException | LinkageError unresolvable) {
                    continue; // a definition whose class cannot be loaded is not ours to judge
                }
                if (type == null || !AnnotationUtils.isCandidateClass(type, IdempotentListener.class)) {
                    continue;
                }
                // The most specific declaration of each method, as the advice sees it at run time.
                MethodIntrospector.selectMethods(ClassUtils.getUserClass(type),
                        (MethodIntrospector.MetadataLookup<IdempotentListener>) method ->
                                AnnotatedElementUtils.findMergedAnnotation(method, IdempotentListener.class))
                        .keySet().forEach(checker::check);
            }
        };
    }

    /**
     * Without an error handler of the application's, Boot's listener container factory gets this one (Spring
     * Kafka's default, prepared below) instead of the one each container would make for itself, which nothing could
     * prepare: records the store could not take, or in progress elsewhere, would be retried ten times at once and
     * then skipped.
     */
    @Bean
    @ConditionalOnMissingBean(CommonErrorHandler.class)
    DefaultErrorHandler onceonlyKafkaErrorHandler() {
        return new DefaultErrorHandler();
    }

    /** Prepares listener container factories and error handlers, whoever defined them. */
    @Bean
    static BeanPostProcessor onceonlyKafkaListenerPreparation() {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                if (bean instanceof AbstractKafkaListenerContainerFactory<?, ?, ?> factory) {
                    IdempotentListeners.install(factory);
                }
                if (bean instanceof DefaultErrorHandler errorHandler) {
                    prepare(errorHandler);
                }
                return bean;
            }
        };
    }

    /** The relay of {@code onceonly.kafka.outbox.table}, on a producer of its own ({@link OutboxProducer}). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty("onceonly.kafka.outbox.table")
    @ConditionalOnBean({DataSource.class, ProducerFactory.class})
    static class OutboxConfiguration {

        @Bean
        OutboxProducer onceonlyOutboxProducer(ProducerFactory<?, ?> producers) {
            return new OutboxProducer(producers);
        }

        @Bean
        OutboxRelay onceonlyOutboxRelay(DataSource dataSource, OutboxProducer producer,
                OnceOnlyKafkaProperties properties, OnceOnlyClock clock) {
            OnceOnlyKafkaProperties.Outbox outbox = properties.outbox();
            return OutboxRelay.builder(dataSource, Objects.requireNonNull(outbox.table()), producer.template())
                    .topic(Objects.requireNonNull(outbox.topic()))
                    .batchSize(outbox.batchSize())
                    .sendTimeout(outbox.sendTimeout())
                    // published_at, which the cleanup compares with OnceOnly's clock
                    .clock(clock.clock())
                    .build();
        }

        /** With {@code onceonly.kafka.outbox.retention}, published rows older than that go with the cleanup. */
        @Bean
        @ConditionalOnProperty("onceonly.kafka.outbox.retention")
        Purgeable onceonlyOutboxCleanup(OutboxRelay relay, OnceOnlyKafkaProperties properties) {
            return relay.expiredPublishedRows(Objects.requireNonNull(properties.outbox().retention()));
        }

        @Bean
        OutboxPoller onceonlyOutboxPoller(OutboxRelay relay, OnceOnlyKafkaProperties properties) {
            return new OutboxPoller(relay, properties.outbox().pollInterval(), properties.outbox().maxBackoff());
        }

        /** The relay's meters, bound to the application's registries by Boot. */
        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(MeterRegistry.class)
        static class OutboxMetricsConfiguration {

            @Bean
            MeterBinder onceonlyOutboxMetrics(OutboxRelay relay, ObjectProvider<Clock> clock) {
                return new OutboxMetrics(relay, clock.getIfAvailable(Clock::systemUTC));
            }
        }
    }

    /**
     * Records without a usable key, and listeners set up wrongly, are not retried: no retry changes them. A record
     * for which nothing ran is retried for as long as that lasts, never skipped nor dead-lettered, instead of the
     * handler's own back-off, which gives up (Spring Kafka's default after ten tries at once): the store was away
     * ({@link IdempotencyStoreException}: a database restart, a failover), or the record's first delivery is still
     * being handled elsewhere (after a rebalance), whose transaction may yet roll back however long it lasts (issue
     * 39: a two-second PostgreSQL restart lost the record). The pause doubles from half a second to ten seconds; the
     * partition's later records wait behind the record, as they must to keep their order.
     */
    static void prepare(DefaultErrorHandler errorHandler) {
        errorHandler.addNotRetryableExceptions(MessageKeyException.class, IdempotencyConfigurationException.class);
        errorHandler.setBackOffFunction((record, failure) -> causedBy(failure, IdempotencyStoreException.class)
                || causedBy(failure, RequestInProgressException.class) ? untilItRuns() : null);
    }

    /** Tries again without end, the pause doubling up to {@link #LONGEST_PAUSE_MILLIS}. */
    private static BackOff untilItRuns() {
        ExponentialBackOff backOff = new ExponentialBackOff(FIRST_PAUSE_MILLIS, 2);
        backOff.setMaxInterval(LONGEST_PAUSE_MILLIS);
        backOff.setMaxElapsedTime(Long.MAX_VALUE);
        return backOff;
    }

    private static boolean causedBy(Throwable failure, Class<? extends Throwable> type) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return true;
            }
        }
        return false;
    }

    /** Counts {@code onceonly.inbox.messages} per consumer and outcome. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    @ConditionalOnBean(MeterRegistry.class)
    static class InboxMetricsConfiguration {

        @Bean
        InboxObserver onceonlyInboxMetrics(MeterRegistry registry) {
            return (consumer, outcome) -> Counter.builder("onceonly.inbox.messages")
                    .description("Records seen by idempotent listeners, by what they came to")
                    .tag("consumer", consumer).tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
                    .register(registry).increment();
        }
    }
}
