package dev.onceonly.spring.boot.kafka;

import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.kafka.inbox.ListenerDedupe;
import dev.onceonly.redis.ShortTtlDedupe;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.data.redis.core.StringRedisTemplate;

/** Redis-TTL listeners' keys in {@link ShortTtlDedupe}, one per consumer and TTL. */
final class RedisListenerDedupe implements ListenerDedupe {

    private final ObjectProvider<StringRedisTemplate> redis;
    private final Duration lease;
    private final ConcurrentMap<String, ShortTtlDedupe> dedupes = new ConcurrentHashMap<>();

    RedisListenerDedupe(ObjectProvider<StringRedisTemplate> redis, Duration lease) {
        this.redis = redis;
        this.lease = lease;
    }

    @Override
    public boolean runOnce(String consumer, String key, Duration ttl, Runnable effect) {
        return dedupes.computeIfAbsent(consumer + '\n' + ttl, name -> new ShortTtlDedupe(template(), consumer, ttl,
                lease)).runOnce(key, effect::run);
    }

    private StringRedisTemplate template() {
        StringRedisTemplate template = redis.getIfUnique();
        if (template == null) {
            throw IdempotencyConfigurationException.of("@IdempotentListener redisTtl", "needs one "
                    + "StringRedisTemplate bean, and there is none or more than one", "Configure Spring Data Redis "
                    + "(spring.data.redis.*)");
        }
        return template;
    }
}
