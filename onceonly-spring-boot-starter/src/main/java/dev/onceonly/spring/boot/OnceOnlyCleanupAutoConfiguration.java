package dev.onceonly.spring.boot;

import dev.onceonly.IdempotencyEngine;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Purges expired records in the background, in throttled batches ({@code onceonly.cleanup.*}), through the
 * engine: its clock decides what has expired, and its store (with decorators such as the metrics) deletes.
 */
@AutoConfiguration(after = OnceOnlyAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = {"onceonly.enabled", "onceonly.cleanup.enabled"}, matchIfMissing = true)
@ConditionalOnBean(IdempotencyEngine.class)
public class OnceOnlyCleanupAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ExpiredRecordCleaner expiredRecordCleaner(IdempotencyEngine engine, OnceOnlyProperties properties) {
        return new ExpiredRecordCleaner(engine, properties.cleanup());
    }
}
