package dev.onceonly.spring.boot.redis;

import dev.onceonly.redis.RedisOutcomeCache;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Locale;
import java.util.function.ToLongFunction;

/**
 * {@code onceonly.redis.cache{result=hit|miss|running|failure|skipped}}: what the outcome cache answered (an outcome,
 * nothing, an attempt running elsewhere) and how often Redis failed or was not asked while the breaker was open;
 * {@code onceonly.redis.breaker.state{state=closed|open|half_open}}: 1 for the current state, 0 for the others.
 */
final class RedisFastLayerMetrics implements MeterBinder {

    private final RedisOutcomeCache cache;

    RedisFastLayerMetrics(RedisOutcomeCache cache) {
        this.cache = cache;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        counter(registry, "hit", RedisOutcomeCache.Statistics::hits);
        counter(registry, "miss", RedisOutcomeCache.Statistics::misses);
        counter(registry, "running", RedisOutcomeCache.Statistics::running);
        counter(registry, "failure", RedisOutcomeCache.Statistics::failures);
        counter(registry, "skipped", RedisOutcomeCache.Statistics::skipped);
        for (CircuitBreaker.State state : new CircuitBreaker.State[] {CircuitBreaker.State.CLOSED,
            CircuitBreaker.State.OPEN, CircuitBreaker.State.HALF_OPEN}) {
            Gauge.builder("onceonly.redis.breaker.state", cache, c -> c.breakerState() == state ? 1 : 0)
                    .description("Whether the Redis breaker is in this state (open: Redis is not asked)")
                    .tag("state", state.name().toLowerCase(Locale.ROOT)).register(registry);
        }
    }

    private void counter(MeterRegistry registry, String result, ToLongFunction<RedisOutcomeCache.Statistics> count) {
        FunctionCounter.builder("onceonly.redis.cache", cache, c -> count.applyAsLong(c.statistics()))
                .description("Outcome cache answers and Redis calls").tag("result", result).register(registry);
    }
}
