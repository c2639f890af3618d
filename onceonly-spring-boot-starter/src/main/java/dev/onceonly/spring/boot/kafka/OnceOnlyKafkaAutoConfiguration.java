package dev.onceonly.spring.boot.kafka;

import dev.onceonly.IdempotencyEngine;
import dev.onceonly.kafka.inbox.IdempotentListener;
import dev.onceonly.kafka.inbox.IdempotentListeners;
import dev.onceonly.kafka.inbox.InboxObserver;
import dev.onceonly.kafka.inbox.MessageKeyException;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.boot.jdbc.OnceOnlyJdbcAutoConfiguration;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Locale;
import org.springframework.aop.Advisor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.kafka.config.AbstractKafkaListenerContainerFactory;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Idempotent Kafka listeners, when onceonly-kafka and Spring Kafka are on the class path and the engine has a
 * transaction manager to join: {@link IdempotentListener} methods run through the inbox, every listener container
 * factory tells them their record, and a {@code DefaultErrorHandler} bean does not retry records without a key.
 */
@AutoConfiguration(after = {OnceOnlyAutoConfiguration.class, OnceOnlyJdbcAutoConfiguration.class},
        afterName = "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration")
@ConditionalOnClass({IdempotentListeners.class, AbstractKafkaListenerContainerFactory.class})
@ConditionalOnBooleanProperty(name = "onceonly.enabled", matchIfMissing = true)
@EnableConfigurationProperties(OnceOnlyKafkaProperties.class)
public class OnceOnlyKafkaAutoConfiguration {

    @Bean
    @ConditionalOnBean({IdempotencyEngine.class, PlatformTransactionManager.class})
    IdempotentListeners onceonlyIdempotentListeners(IdempotencyEngine engine,
            PlatformTransactionManager transactionManager, BeanFactory beans, OnceOnlyKafkaProperties properties,
            ObjectProvider<InboxObserver> observer) {
        return new IdempotentListeners(engine, transactionManager, beans, properties.inboxRetention(),
                properties.eventIdHeader(), observer.getIfAvailable(() -> InboxObserver.NONE));
    }

    /**
     * An infrastructure advisor, which the auto-proxy creator of Spring's transaction management applies too. It
     * resolves the listeners only on the first call: advisors are created before ordinary beans, and the engine
     * must not be pulled in that early.
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static Advisor onceonlyIdempotentListenerAdvisor(ObjectProvider<IdempotentListeners> listeners) {
        return IdempotentListeners.advisor(invocation -> listeners.getObject().invoke(invocation));
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
                    errorHandler.addNotRetryableExceptions(MessageKeyException.class);
                }
                return bean;
            }
        };
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
