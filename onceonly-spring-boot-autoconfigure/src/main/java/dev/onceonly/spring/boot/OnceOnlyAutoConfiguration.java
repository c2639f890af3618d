package dev.onceonly.spring.boot;

import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyEngineBuilder;
import dev.onceonly.IdempotencyKeyFormat;
import dev.onceonly.RetryPolicy;
import dev.onceonly.TransactionRunner;
import dev.onceonly.crypto.EncryptingIdempotencyStore;
import dev.onceonly.crypto.EncryptionKeys;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spring.OnceOnlySetup;
import java.time.Clock;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.util.ClassUtils;

/**
 * The engine and key format from {@code onceonly.*}. The store is whatever {@link IdempotencyStore} bean
 * exists: the JDBC store when there is a {@code DataSource}, or one you define. The mode follows
 * {@code onceonly.mode} and the {@link TransactionRunner} bean (the JDBC auto-configuration makes one from the
 * transaction manager); see {@link EngineModeSelection}. The engine's clock is the {@link OnceOnlyClock}: a
 * {@link Clock} bean, if any (with the JDBC store, corrected to the database's time), and
 * {@link IdempotencyEngineCustomizer} beans adjust the builder last.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "onceonly.enabled", matchIfMissing = true)
@EnableConfigurationProperties(OnceOnlyProperties.class)
public class OnceOnlyAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    IdempotencyKeyFormat idempotencyKeyFormat(OnceOnlyProperties properties) {
        return properties.key().format();
    }

    /** The bean name of the scheduler that renews leased attempts' leases. */
    public static final String HEARTBEAT_SCHEDULER = "onceonlyHeartbeatScheduler";

    /**
     * Renews leases of running leased attempts. Daemon threads of its own, so that a busy application scheduler
     * cannot delay a renewal past the lease; stopped with the context.
     */
    @Bean(name = HEARTBEAT_SCHEDULER, destroyMethod = "shutdownNow")
    @ConditionalOnMissingBean(name = HEARTBEAT_SCHEDULER)
    ScheduledExecutorService onceonlyHeartbeatScheduler(OnceOnlyProperties properties) {
        AtomicInteger threads = new AtomicInteger();
        return Executors.newScheduledThreadPool(properties.lease().heartbeatThreads(), task -> {
            Thread thread = new Thread(task, "onceonly-heartbeat-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** The application's clock, where no store puts OnceOnly on another (the JDBC store: the database's time). */
    @Bean
    @ConditionalOnMissingBean
    OnceOnlyClock onceOnlyClock(ObjectProvider<Clock> clock) {
        return new OnceOnlyClock(clock.getIfAvailable(Clock::systemUTC));
    }

    @Bean
    @ConditionalOnMissingBean
    IdempotencyEngine idempotencyEngine(ObjectProvider<IdempotencyStore> store,
            ObjectProvider<TransactionRunner> transactions, ObjectProvider<IdempotencyStoreDecorator> decorators,
            ObjectProvider<IdempotencyEngineCustomizer> customizers, OnceOnlyClock clock,
            ObjectProvider<EncryptionKeys> encryption, ListableBeanFactory beans, OnceOnlyProperties properties,
            @Qualifier(HEARTBEAT_SCHEDULER) ScheduledExecutorService heartbeats) {
        IdempotencyStore available = store.getIfUnique();
        if (available == null) {
            // The starter brings no store, so the JDBC one may be missing altogether: then say which artifact.
            boolean jdbcStore = ClassUtils.isPresent("dev.onceonly.jdbc.JdbcIdempotencyStore",
                    beans instanceof ConfigurableBeanFactory factory ? factory.getBeanClassLoader() : null);
            throw IdempotencyConfigurationException.of("IdempotencyStore", "no single IdempotencyStore bean "
                    + "exists", jdbcStore ? "Add a DataSource for the JDBC store, or define one IdempotencyStore bean"
                    : "To keep records in your database, add dev.onceonly:onceonly-jdbc and a DataSource; or define "
                    + "one IdempotencyStore bean");
        }
        if (properties.retention().audit() != null && !available.keepsAudit()) {
            throw IdempotencyConfigurationException.of("onceonly.retention.audit", "is set, but the store "
                    + available + " does not keep audit fields, so it would be ignored", "Use the starter's JDBC "
                    + "store, or call keepingAudit(…) on your own JdbcIdempotencyStore and remove the property");
        }
        for (IdempotencyStoreDecorator decorator : decorators.orderedStream().toList()) {
            available = decorator.decorate(available);
        }
        EncryptionKeys keys = encryption.getIfAvailable();
        if (keys != null) {
            // Outside every decorator, whatever their order: all of them, caches included, see only ciphertext.
            available = new EncryptingIdempotencyStore(available, keys);
        }
        EngineModeSelection mode = EngineModeSelection.select(properties.mode(), transactions, beans);
        IdempotencyEngineBuilder builder = IdempotencyEngine.builder(available)
                .clock(clock.clock())
                .mode(mode.mode());
        if (mode.runner() != null) {
            builder.transactions(mode.runner());
        }
        builder.heartbeatScheduler(heartbeats);
        applyProperties(builder, properties);
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return builder.build();
    }

    /** Says once what was decided, and shows it on the actuator endpoint: no choice is silent. */
    @Bean
    @ConditionalOnMissingBean
    OnceOnlySetup onceOnlySetup(IdempotencyEngine engine, ObjectProvider<IdempotencyStore> store,
            ObjectProvider<EncryptionKeys> encryption) {
        IdempotencyStore own = store.getIfUnique();
        // Only OnceOnly's own stores describe themselves: another's toString() could hold a connection string
        String described = own == null ? "of the application's engine"
                : own.getClass().getName().startsWith("dev.onceonly.") ? own.toString()
                : own.getClass().getSimpleName();
        return new OnceOnlySetup(described, engine.mode(), encryption.getIfAvailable() != null);
    }

    @Bean
    IdempotentPlacementCheck idempotentPlacementCheck(ApplicationContext context) {
        return new IdempotentPlacementCheck(context);
    }

    /** The builder checks every value by core's rules; a refusal names the property it came from. */
    private static void applyProperties(IdempotencyEngineBuilder builder, OnceOnlyProperties properties) {
        builder.keyStorage(properties.key().keyStorage());
        set("onceonly.lease.duration", () -> builder.leaseDuration(properties.lease().duration()));
        OnceOnlyProperties.Lease lease = properties.lease();
        set("onceonly.lease.max-attempts/backoff/max-backoff", () -> builder.retryPolicy(
                new RetryPolicy(lease.maxAttempts(), lease.backoff(), lease.maxBackoff())));
        set("onceonly.lease.max-attempt-duration", () -> builder.maxAttemptDuration(lease.maxAttemptDuration()));
        set("onceonly.wait-timeout", () -> builder.waitTimeout(properties.waitTimeout()));
        set("onceonly.retry-after", () -> builder.retryAfter(properties.retryAfter()));
        set("onceonly.replay-cache.time-to-live/max-size", () -> builder.replayCache(
                properties.replayCache().timeToLive(), properties.replayCache().maxSize().toBytes()));
        builder.retention(properties.retention().engineRetention());
    }

    private static void set(String property, Runnable setter) {
        try {
            setter.run();
        } catch (IdempotencyConfigurationException e) {
            throw e.renamed(property);
        }
    }
}
