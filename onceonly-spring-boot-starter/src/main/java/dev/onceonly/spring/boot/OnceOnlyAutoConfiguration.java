package dev.onceonly.spring.boot;

import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKeyFormat;
import dev.onceonly.Retention;
import dev.onceonly.TransactionRunner;
import dev.onceonly.spi.IdempotencyStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The engine and key format from {@code onceonly.*}. The store is whatever {@link IdempotencyStore} bean
 * exists: the JDBC store when there is a {@code DataSource}, or one you define. Transactional mode is on when a
 * {@link TransactionRunner} exists (the JDBC auto-configuration makes one from the transaction manager).
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "onceonly.enabled", matchIfMissing = true)
@EnableConfigurationProperties(OnceOnlyProperties.class)
public class OnceOnlyAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    IdempotencyKeyFormat idempotencyKeyFormat(OnceOnlyProperties properties) {
        OnceOnlyProperties.Key key = properties.key();
        return key.pattern() != null ? IdempotencyKeyFormat.matching(key.pattern())
                : IdempotencyKeyFormat.lengthBetween(key.minLength(), key.maxLength());
    }

    @Bean
    @ConditionalOnMissingBean
    IdempotencyEngine idempotencyEngine(ObjectProvider<IdempotencyStore> store,
            ObjectProvider<TransactionRunner> transactions, ObjectProvider<IdempotencyStoreDecorator> decorators,
            OnceOnlyProperties properties) {
        IdempotencyStore available = store.getIfUnique();
        if (available == null) {
            throw IdempotencyConfigurationException.of("IdempotencyStore", "no single IdempotencyStore bean exists; "
                    + "add a DataSource for the JDBC store, or define one IdempotencyStore bean");
        }
        for (IdempotencyStoreDecorator decorator : decorators.orderedStream().toList()) {
            available = decorator.decorate(available);
        }
        return IdempotencyEngine.builder(available)
                .leaseDuration(properties.lease().duration())
                .waitTimeout(properties.waitTimeout())
                .retryAfter(properties.retryAfter())
                .retention(new Retention(properties.retention().succeeded(), properties.retention().failed()))
                .replayCache(properties.replayCache().timeToLive(), properties.replayCache().maxSize().toBytes())
                .transactions(transactions.getIfUnique())
                .build();
    }
}
