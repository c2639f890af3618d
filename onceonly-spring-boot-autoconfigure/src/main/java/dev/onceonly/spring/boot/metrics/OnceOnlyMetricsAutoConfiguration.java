package dev.onceonly.spring.boot.metrics;

import dev.onceonly.spring.boot.IdempotencyStoreDecorator;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer metrics: {@code onceonly.requests} counted by {@code operation} and {@code outcome}, and
 * {@code onceonly.store.operations} timed by {@code operation} and {@code store}.
 */
@AutoConfiguration(afterName = {
    "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
public class OnceOnlyMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    MicrometerIdempotencyListener micrometerIdempotencyListener(MeterRegistry registry) {
        return new MicrometerIdempotencyListener(registry);
    }

    /** The engine's store is timed; the store bean keeps its own type and lifecycle. */
    @Bean
    IdempotencyStoreDecorator timedIdempotencyStore(MeterRegistry registry) {
        return store -> new TimedIdempotencyStore(store, registry);
    }
}
