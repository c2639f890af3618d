package dev.onceonly.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IdempotencyEngineBuilder;
import dev.onceonly.jdbc.PostgresTransactionalModeIT;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The transactional-mode contract on PostgreSQL with the Redis outcome cache in front of the store: with Redis
 * up, with Redis unreachable from the start, and with Redis killed in the middle of every test and started again
 * (empty) a few calls later. The store decides every race; Redis only answers sooner.
 */
class RedisFrontedTransactionalModeIT {

    private static final LettuceConnectionFactory SHARED = TestRedis.shared();
    private static final LettuceConnectionFactory UNREACHABLE = TestRedis.failFast(closedPort());
    private static final RedisServerProcess RESTARTING = RedisServerProcess.start();
    private static final LettuceConnectionFactory RESTARTING_CONNECTIONS = TestRedis.failFast(RESTARTING.port());

    @AfterAll
    static void disconnect() {
        UNREACHABLE.destroy();
        RESTARTING_CONNECTIONS.destroy();
        RESTARTING.close();
    }

    /** The cache of every engine a test builds, to check afterwards that Redis was asked as the variant says. */
    private static final List<RedisOutcomeCache> CACHES = new CopyOnWriteArrayList<>();

    @BeforeEach
    void forgetCaches() {
        CACHES.clear();
    }

    private static RedisOutcomeCache cache(LettuceConnectionFactory connections) {
        RedisOutcomeCache cache = RedisOutcomeCache.builder(connections).openFor(Duration.ofMillis(200)).build();
        CACHES.add(cache);
        return cache;
    }

    private static long total(ToLongFunction<RedisOutcomeCache.Statistics> count) {
        return CACHES.stream().mapToLong(cache -> count.applyAsLong(cache.statistics())).sum();
    }

    @Nested
    class WithRedisUp extends PostgresTransactionalModeIT {
        @Override
        protected IdempotencyEngineBuilder configure(IdempotencyEngineBuilder builder) {
            return builder.outcomeCache(cache(SHARED));
        }

        @AfterEach
        void redisAnsweredEveryCall() {
            assertThat(total(RedisOutcomeCache.Statistics::failures) + total(RedisOutcomeCache.Statistics::skipped))
                    .isZero();
            if (!CACHES.isEmpty()) {
                assertThat(total(RedisOutcomeCache.Statistics::hits) + total(RedisOutcomeCache.Statistics::misses)
                        + total(RedisOutcomeCache.Statistics::running)).isPositive();
            }
        }
    }

    @Nested
    class WithRedisUnreachableFromTheStart extends PostgresTransactionalModeIT {
        @Override
        protected IdempotencyEngineBuilder configure(IdempotencyEngineBuilder builder) {
            return builder.outcomeCache(cache(UNREACHABLE));
        }

        @AfterEach
        void redisAnsweredNothing() {
            assertThat(total(RedisOutcomeCache.Statistics::hits) + total(RedisOutcomeCache.Statistics::misses)
                    + total(RedisOutcomeCache.Statistics::running)).isZero();
        }
    }

    @Nested
    class WithRedisKilledAndRestartedMidTest extends PostgresTransactionalModeIT {
        private final List<KilledOnFirstOutcome> outages = new CopyOnWriteArrayList<>();

        @Override
        protected IdempotencyEngineBuilder configure(IdempotencyEngineBuilder builder) {
            RESTARTING.restart();
            KilledOnFirstOutcome outage = new KilledOnFirstOutcome(RESTARTING, cache(RESTARTING_CONNECTIONS));
            outages.add(outage);
            return builder.outcomeCache(outage);
        }

        @AfterEach
        void everyKilledRedisFailedSomeCalls() {
            if (outages.stream().anyMatch(KilledOnFirstOutcome::killed)) {
                assertThat(total(RedisOutcomeCache.Statistics::failures)).isPositive();
            }
        }
    }

    private static int closedPort() {
        try {
            return RedisServerProcess.freePort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
