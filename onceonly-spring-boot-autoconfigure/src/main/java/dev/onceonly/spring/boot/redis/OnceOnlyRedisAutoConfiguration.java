package dev.onceonly.spring.boot.redis;

import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.crypto.EncryptingOutcomeCache;
import dev.onceonly.crypto.EncryptionKeys;
import dev.onceonly.redis.RedisLocks;
import dev.onceonly.redis.RedisOutcomeCache;
import dev.onceonly.spring.OnceOnlySetup;
import dev.onceonly.spring.boot.IdempotencyEngineCustomizer;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.boot.OnceOnlyClock;
import dev.onceonly.spring.boot.OnceOnlyEncryptionAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Redis fast layer, when onceonly-redis is on the class path and the application has a Lettuce connection
 * ({@code spring.data.redis.*}): OnceOnly's own fail-fast connection to that Redis ({@link OnceOnlyRedis}), its
 * {@link RedisOutcomeCache} in front of the engine's store (encrypted when the stored responses are), and
 * {@link RedisLocks}. {@code onceonly.redis.enabled=false} turns it off.
 */
@AutoConfiguration(before = OnceOnlyAutoConfiguration.class, after = OnceOnlyEncryptionAutoConfiguration.class,
        afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass({RedisOutcomeCache.class, LettuceConnectionFactory.class})
@ConditionalOnBean(LettuceConnectionFactory.class)
@ConditionalOnBooleanProperty(name = {"onceonly.enabled", "onceonly.redis.enabled"}, matchIfMissing = true)
@EnableConfigurationProperties(OnceOnlyRedisProperties.class)
public class OnceOnlyRedisAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    OnceOnlyRedis onceOnlyRedis(LettuceConnectionFactory application, OnceOnlyRedisProperties properties,
            OnceOnlyClock clock, ObjectProvider<DataRedisConnectionDetails> details) {
        DataRedisConnectionDetails connection = details.getIfAvailable();
        if (application.getSocketConfiguration() != null
                || (connection != null && connection.getMasterReplica() != null)) {
            // OnceOnly's own connection copies the application's; these two it cannot copy faithfully.
            throw IdempotencyConfigurationException.of("onceonly.redis.enabled", "the Redis layer does not support "
                    + "a Unix socket or a static master/replica setup", "Set onceonly.redis.enabled=false");
        }
        return new OnceOnlyRedis(application, properties, clock.clock());
    }

    /** Tells the startup summary that Redis fronts the store, and how. */
    @Bean
    SmartInitializingSingleton onceOnlyRedisSetup(ObjectProvider<OnceOnlySetup> setup, OnceOnlyRedis redis) {
        return () -> setup.ifAvailable(summary -> summary.redis(redis.writeOnce() ? "write-once" : "claim-first"));
    }

    /** First of the customizers, so that the application's may wrap or replace the cache. */
    @Bean
    @Order(Ordered.HIGHEST_PRECEDENCE)
    IdempotencyEngineCustomizer redisOutcomeCache(OnceOnlyRedis redis, ObjectProvider<EncryptionKeys> encryption) {
        EncryptionKeys keys = encryption.getIfAvailable();
        RedisOutcomeCache cache = redis.outcomeCache();
        return builder -> builder.outcomeCache(keys == null ? cache : new EncryptingOutcomeCache(cache, keys))
                .writeOnce(redis.writeOnce());
    }

    @Bean
    @ConditionalOnMissingBean
    RedisLocks redisLocks(OnceOnlyRedis redis) {
        return new RedisLocks(redis.template(), redis.prefix());
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    @ConditionalOnEnabledHealthIndicator("onceonlyredis")
    static class Health {
        @Bean
        @ConditionalOnMissingBean(name = "onceOnlyRedisHealthIndicator")
        HealthIndicator onceOnlyRedisHealthIndicator(OnceOnlyRedis redis) {
            return new RedisFastLayerHealthIndicator(redis);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static class Metrics {
        @Bean
        RedisFastLayerMetrics onceOnlyRedisMetrics(OnceOnlyRedis redis) {
            return new RedisFastLayerMetrics(redis.outcomeCache());
        }
    }
}
