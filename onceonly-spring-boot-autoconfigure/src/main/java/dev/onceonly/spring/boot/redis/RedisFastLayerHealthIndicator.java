package dev.onceonly.spring.boot.redis;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.util.Locale;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * {@code onceOnlyRedis} in the health endpoint: UP whether or not Redis answers, since without it requests go to the
 * database and are only slower; its details tell which: {@code redis} ({@code answering} or {@code unreachable}),
 * the {@code breaker} state, and the address. Alert on {@code onceonly.redis.breaker.state} or a falling hit
 * count, not on this status. A PING over OnceOnly's fail-fast connection: a probe waits at most the Redis timeout.
 */
final class RedisFastLayerHealthIndicator implements HealthIndicator {

    private final OnceOnlyRedis redis;

    RedisFastLayerHealthIndicator(OnceOnlyRedis redis) {
        this.redis = redis;
    }

    @Override
    public Health health() {
        CircuitBreaker.State breaker = redis.outcomeCache().breakerState();
        return Health.up()
                .withDetail("redis", redis.answers() ? "answering" : "unreachable")
                .withDetail("breaker", breaker.name().toLowerCase(Locale.ROOT))
                .withDetail("address", redis.address())
                .build();
    }
}
