package dev.onceonly.spring.boot.health;

import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The store's health indicator, {@code onceOnly} in the health endpoint, with Actuator on the class path
 * ({@code management.health.onceonly.enabled}); a bean of your own named {@code onceOnlyHealthIndicator}
 * replaces it.
 */
@AutoConfiguration(after = OnceOnlyAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(IdempotencyStore.class)
@ConditionalOnEnabledHealthIndicator("onceonly")
public class OnceOnlyHealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "onceOnlyHealthIndicator")
    IdempotencyStoreHealthIndicator onceOnlyHealthIndicator(IdempotencyStore store) {
        return new IdempotencyStoreHealthIndicator(store);
    }
}
