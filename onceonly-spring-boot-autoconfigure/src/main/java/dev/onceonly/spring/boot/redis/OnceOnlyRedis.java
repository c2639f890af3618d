package dev.onceonly.spring.boot.redis;

import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.redis.FailFastLettuce;
import dev.onceonly.redis.RedisOutcomeCache;
import java.time.Clock;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * OnceOnly's own connection to the application's Redis, with {@link FailFastLettuce} settings (the application's
 * connection keeps its own), and what uses it: the {@linkplain #outcomeCache() outcome cache} and a
 * {@linkplain #template() template} for form tokens and locks. Not a {@code RedisConnectionFactory} bean, so that
 * the application's stays the only one.
 */
public final class OnceOnlyRedis implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(OnceOnlyRedis.class);

    private final LettuceConnectionFactory connections;
    private final StringRedisTemplate template;
    private final RedisOutcomeCache outcomeCache;
    private final String address;
    private final String prefix;
    private final boolean writeOnce;

    OnceOnlyRedis(LettuceConnectionFactory application, OnceOnlyRedisProperties properties, Clock clock) {
        this.connections = FailFastLettuce.derivedFrom(application, properties.timeout());
        RedisOutcomeCache.Builder cache;
        try {
            // onceonly-redis holds the rule for prefixes (the hash tags need them free of braces).
            cache = RedisOutcomeCache.builder(connections).prefix(properties.prefix());
        } catch (IllegalArgumentException e) {
            throw IdempotencyConfigurationException.of("onceonly.redis.prefix", String.valueOf(e.getMessage()));
        }
        connections.afterPropertiesSet();
        connections.start();
        this.template = new StringRedisTemplate(connections);
        this.outcomeCache = cache
                .markerTtl(properties.markerTtl())
                .maxTimeToLive(properties.maxTimeToLive())
                .maxBodyBytes((int) properties.maxBodySize().toBytes())
                .openFor(properties.breakerOpenFor())
                .clock(clock)
                .build();
        this.address = address(application);
        this.prefix = properties.prefix();
        this.writeOnce = properties.writeOnce();
        announce();
    }

    /** The outcome cache the engine asks before its store. */
    public RedisOutcomeCache outcomeCache() {
        return outcomeCache;
    }

    /** Strings over OnceOnly's fail-fast connection: for form tokens, locks and dedupe. */
    public StringRedisTemplate template() {
        return template;
    }

    /** What OnceOnly's Redis keys start with ({@code onceonly.redis.prefix}): for form tokens and locks too. */
    public String prefix() {
        return prefix;
    }

    /** Whether first executions that hold a marker write their record once ({@code onceonly.redis.write-once}). */
    boolean writeOnce() {
        return writeOnce;
    }

    /** Where Redis is, for logs and health: host and port, or the cluster's or sentinels' nodes. */
    public String address() {
        return address;
    }

    /** Whether Redis answers a PING now. */
    public boolean answers() {
        try (RedisConnection connection = connections.getConnection()) {
            return "PONG".equals(connection.ping());
        } catch (RuntimeException e) {
            return false;
        }
    }

    @Override
    public void destroy() {
        connections.destroy();
    }

    /** Says at startup whether Redis is in use, since a dead Redis would otherwise only be slower, silently. */
    private void announce() {
        if (outcomeCache.ping()) {
            log.info("OnceOnly Redis fast layer on: Redis at {} answers", address);
        } else {
            log.warn("OnceOnly Redis fast layer waiting: Redis at {} does not answer; requests go to the database "
                    + "alone until it does", address);
        }
    }

    private static String address(LettuceConnectionFactory application) {
        RedisClusterConfiguration cluster = application.getClusterConfiguration();
        if (application.isClusterAware() && cluster != null) {
            return "cluster " + cluster.getClusterNodes().stream().map(Object::toString)
                    .collect(Collectors.joining(","));
        }
        RedisSentinelConfiguration sentinels = application.getSentinelConfiguration();
        if (application.isRedisSentinelAware() && sentinels != null) {
            return "sentinels " + sentinels.getSentinels().stream().map(Object::toString)
                    .collect(Collectors.joining(","));
        }
        return application.getStandaloneConfiguration().getHostName() + ":"
                + application.getStandaloneConfiguration().getPort();
    }
}
