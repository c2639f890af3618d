package dev.onceonly.spring.boot.redis;

import dev.onceonly.IdempotencyConfigurationException;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * {@code onceonly.redis.*}: the Redis fast layer, on whenever onceonly-redis and a Lettuce connection
 * ({@code spring.data.redis.*}) are there.
 *
 * @param enabled whether OnceOnly uses Redis at all
 * @param timeout how long one Redis call may take (command and connect) before the request asks the database
 * @param prefix what OnceOnly's keys start with: give services that share a Redis their own
 * @param markerTtl how long after its start an attempt's marker says it may still be running (duplicates elsewhere
 *     are told "in progress" that long at most after its process died, then the next attempt takes the marker over
 *     and claims first); a marker lasts this long, or with write-once as long as max-time-to-live, unless the
 *     outcome's first replay or the attempt's failure ends it
 * @param maxTimeToLive the longest an outcome is kept in Redis, never past its record's expiry
 * @param maxBodySize larger bodies are not kept in Redis (their replays ask the database)
 * @param breakerOpenFor how long Redis is not asked after failures opened the breaker, before a few probes
 * @param writeOnce whether a transactional first execution that holds a marker writes its record once at commit
 *     instead of claiming first: only for operations whose work has no effect outside the database transaction
 */
@ConfigurationProperties("onceonly.redis")
public record OnceOnlyRedisProperties(@DefaultValue("true") boolean enabled, @DefaultValue("200ms") Duration timeout,
        @DefaultValue("onceonly") String prefix, @DefaultValue("10s") Duration markerTtl,
        @DefaultValue("1h") Duration maxTimeToLive, @DefaultValue("64KB") DataSize maxBodySize,
        @DefaultValue("2s") Duration breakerOpenFor, @DefaultValue("false") boolean writeOnce) {

    public OnceOnlyRedisProperties {
        requirePositive("onceonly.redis.timeout", timeout);
        requirePositive("onceonly.redis.marker-ttl", markerTtl);
        requirePositive("onceonly.redis.max-time-to-live", maxTimeToLive);
        requirePositive("onceonly.redis.breaker-open-for", breakerOpenFor);
        if (timeout.compareTo(Duration.ofSeconds(10)) > 0) {
            throw IdempotencyConfigurationException.of("onceonly.redis.timeout", "must be at most 10s: every "
                    + "request waits this long for a Redis that died, but is " + timeout);
        }
        if (maxBodySize.isNegative() || maxBodySize.toBytes() > Integer.MAX_VALUE) {
            throw IdempotencyConfigurationException.of("onceonly.redis.max-body-size", "must be 0 to 2GB");
        }
    }

    private static void requirePositive(String name, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw IdempotencyConfigurationException.of(name, "must be positive, but is " + value);
        }
    }
}
