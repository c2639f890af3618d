package dev.onceonly.spring.boot;

import dev.onceonly.spi.IdempotencyStore;
import java.time.Clock;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** Purges expired records in the background, in throttled batches ({@code onceonly.cleanup.*}). */
@AutoConfiguration(after = OnceOnlyAutoConfiguration.class, afterName = "dev.onceonly.spring.boot.jdbc.OnceOnlyJdbcAutoConfiguration")
@ConditionalOnBooleanProperty(name = {"onceonly.enabled", "onceonly.cleanup.enabled"}, matchIfMissing = true)
@ConditionalOnBean(IdempotencyStore.class)
public class OnceOnlyCleanupAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ExpiredRecordCleaner expiredRecordCleaner(IdempotencyStore store, OnceOnlyProperties properties) {
        return new ExpiredRecordCleaner(store, Clock.systemUTC(), properties.cleanup());
    }
}
