package dev.onceonly.spring.boot.metrics;

import dev.onceonly.IdempotencyEngine;
import dev.onceonly.spring.boot.BackgroundCleanup;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.boot.OnceOnlyCleanupAutoConfiguration;
import dev.onceonly.spring.boot.OnceOnlyProperties;
import dev.onceonly.spring.boot.PeriodicTask;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Metrics of what the store holds and of the cleanup: the record counts ({@link RecordCountMetrics}, every
 * {@code onceonly.metrics.record-counts-interval}) and the rows each table's cleanup removed ({@link CleanupMetrics}).
 */
@AutoConfiguration(after = {OnceOnlyAutoConfiguration.class, OnceOnlyCleanupAutoConfiguration.class,
    OnceOnlyMetricsAutoConfiguration.class})
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({MeterRegistry.class, IdempotencyEngine.class})
public class OnceOnlyRecordMetricsAutoConfiguration {

    /** Counted at once after startup, then every interval; an interval of zero turns the counts off. */
    @Bean
    @Nullable PeriodicTask onceOnlyRecordCounts(IdempotencyEngine engine, OnceOnlyProperties properties,
            MeterRegistry registry) {
        Duration interval = properties.metrics().recordCountsInterval();
        if (interval.isZero()) {
            return null;
        }
        RecordCountMetrics counts = new RecordCountMetrics(engine.administration(), engine.clock(), interval,
                registry);
        return new PeriodicTask("onceonly-record-counts", Duration.ZERO, interval, counts::count);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBean(BackgroundCleanup.class)
    static class Cleanup {

        @Bean
        CleanupMetrics onceOnlyCleanupMetrics(BackgroundCleanup cleanup) {
            return new CleanupMetrics(cleanup);
        }
    }
}
