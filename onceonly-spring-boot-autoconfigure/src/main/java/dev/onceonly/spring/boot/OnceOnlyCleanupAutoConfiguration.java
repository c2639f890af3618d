package dev.onceonly.spring.boot;

import dev.onceonly.IdempotencyEngine;
import dev.onceonly.spi.Purgeable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Purges every OnceOnly table in the background, in throttled batches ({@code onceonly.cleanup.*}): the engine's
 * expired records (through its store, so that its decorators such as the metrics see the purge), and every
 * {@link Purgeable} bean (the audit table, the outbox), by the engine's clock ({@link IdempotencyEngine#clock()}: the
 * database's time with the JDBC store), which wrote the records' expiries.
 */
@AutoConfiguration(after = OnceOnlyAutoConfiguration.class, afterName = {
    "dev.onceonly.spring.boot.jdbc.OnceOnlyJdbcAutoConfiguration",
    "dev.onceonly.spring.boot.kafka.OnceOnlyKafkaAutoConfiguration"})
@ConditionalOnBooleanProperty(name = {"onceonly.enabled", "onceonly.cleanup.enabled"}, matchIfMissing = true)
@ConditionalOnBean(IdempotencyEngine.class)
public class OnceOnlyCleanupAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    BackgroundCleanup onceOnlyBackgroundCleanup(IdempotencyEngine engine, ObjectProvider<Purgeable> tables,
            OnceOnlyProperties properties) {
        List<Purgeable> all = new ArrayList<>();
        all.add(engine.expiredRecords());
        tables.orderedStream().forEach(all::add);
        return new BackgroundCleanup(all, engine.clock(), properties.cleanup());
    }

    @Bean
    PeriodicTask onceOnlyBackgroundCleanupTask(BackgroundCleanup cleanup, OnceOnlyProperties properties) {
        Duration interval = properties.cleanup().interval();
        return new PeriodicTask("onceonly-cleanup", interval, interval, cleanup::purgeOnce);
    }
}
