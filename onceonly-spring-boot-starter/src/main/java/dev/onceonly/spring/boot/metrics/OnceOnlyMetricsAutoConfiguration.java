package dev.onceonly.spring.boot.metrics;

import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer metrics: {@code onceonly.requests} counted by {@code operation} and {@code outcome}, and
 * {@code onceonly.store.operations} timed by {@code operation} and {@code store}.
 */
@AutoConfiguration(before = OnceOnlyAutoConfiguration.class, afterName = {
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

    @Bean
    static BeanPostProcessor timedIdempotencyStores(ObjectProvider<MeterRegistry> registry) {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                return bean instanceof IdempotencyStore store && !(bean instanceof TimedIdempotencyStore)
                        ? new TimedIdempotencyStore(store, registry.getObject()) : bean;
            }
        };
    }
}
