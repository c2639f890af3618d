package dev.onceonly.example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.redis.MidTestOutage;
import dev.onceonly.redis.RedisServerProcess;
import dev.onceonly.spring.boot.IdempotencyEngineCustomizer;
import dev.onceonly.spring.boot.redis.OnceOnlyRedis;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

/**
 * The HTTP protocol on the local PostgreSQL with a Redis of the test's own that is killed in the middle of every
 * test (at the first call after an attempt took its marker, the only trace of it in Redis) and started again,
 * empty, a few calls later.
 */
@TestPropertySource(properties = {
    "spring.datasource.url=${onceonly.test.postgres.url:jdbc:postgresql://127.0.0.1:5432/test?user=postgres}"
            + "&currentSchema=onceonly_example",
    "spring.flyway.schemas=onceonly_example",
    "onceonly.redis.breaker-open-for=200ms"
})
@Import(PostgresOrdersHttpRedisRestartedIT.Outage.class)
class PostgresOrdersHttpRedisRestartedIT extends OrdersHttpContract {

    private static final RedisServerProcess REDIS = RedisServerProcess.start();
    private static final AtomicInteger TESTS = new AtomicInteger();
    private static final AtomicInteger TESTS_WITH_AN_OUTAGE = new AtomicInteger();

    @Autowired
    MidTestOutage outage;

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.port", REDIS::port);
    }

    @AfterAll
    static void stopRedis() {
        REDIS.close();
    }

    @BeforeEach
    void rearm() {
        outage.rearm();
    }

    @AfterEach
    void countOutages() {
        TESTS.incrementAndGet();
        if (outage.struck()) {
            TESTS_WITH_AN_OUTAGE.incrementAndGet();
        }
    }

    @AfterAll
    static void mostTestsLostRedisHalfway() {
        // Those that make no call after an attempt took its marker (a single request, refused requests) keep Redis
        // throughout: 7 of the 23.
        assertThat(TESTS_WITH_AN_OUTAGE.get()).isGreaterThan(TESTS.get() / 4);
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class Outage {

        @Bean
        MidTestOutage outage(OnceOnlyRedis redis) {
            return new MidTestOutage(REDIS, redis.outcomeCache(), MidTestOutage.Outage.KILLED,
                    MidTestOutage.Moment.AFTER_FIRST_MARKER);
        }

        /** After the starter's: the engine asks Redis through the outage. */
        @Bean
        @Order(Ordered.LOWEST_PRECEDENCE)
        IdempotencyEngineCustomizer throughTheOutage(MidTestOutage outage) {
            return builder -> builder.outcomeCache(outage);
        }
    }
}
