package dev.onceonly.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.StoredResponse;
import dev.onceonly.spi.CachedOutcome;
import dev.onceonly.spi.OutcomeCache;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Redis outcome cache when Redis is gone: every call answers "unknown" within the command timeout (not
 * Lettuce's default minute), the breaker then stops asking, and Redis is used again once it is back. A Redis of
 * the test's own is killed; the shared one never is.
 */
@Timeout(60)
class RedisOutcomeCacheOutageIT {

    /** The longest one call may take: the timeout, and room for a loaded machine; far below Lettuce's 60 s. */
    private static final Duration CALL_BOUND = TestRedis.TIMEOUT.plusSeconds(2);

    private final IdempotencyScope scope = new IdempotencyScope("alice", "create-order",
            IdempotencyKey.of(UUID.randomUUID().toString()));

    @Test
    void anUnreachableRedisAnswersUnknownWithinTheTimeoutThenIsNotAskedWhileTheBreakerIsOpen() throws IOException {
        LettuceConnectionFactory connections = TestRedis.failFast(RedisServerProcess.freePort());
        try {
            RedisOutcomeCache cache = RedisOutcomeCache.builder(connections).openFor(Duration.ofMinutes(1)).build();

            for (int call = 0; call < 3; call++) {
                assertThat(timed(() -> cache.enter(scope, fingerprint(), false))).isEqualTo(OutcomeCache.Unknown.INSTANCE);
            }
            assertThat(cache.breakerState()).isEqualTo(CircuitBreaker.State.OPEN);
            for (int call = 0; call < 100; call++) {
                assertThat(cache.enter(scope, fingerprint(), false)).isEqualTo(OutcomeCache.Unknown.INSTANCE);
                cache.remember(scope, outcome());
            }

            assertThat(cache.statistics()).isEqualTo(new RedisOutcomeCache.Statistics(0, 0, 0, 3, 200));
        } finally {
            connections.destroy();
        }
    }

    /**
     * A Redis that accepts connections and never answers (a host gone silent before the service ever reached it):
     * concurrent requests do not queue behind one another's connection attempts, each waits the timeout at most.
     */
    @Test
    void requestsDoNotQueueBehindConnectionAttemptsToARedisThatNeverAnswered() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 100)) {
            LettuceConnectionFactory connections = TestRedis.failFast(silent.getLocalPort());
            ExecutorService requests = Executors.newFixedThreadPool(20);
            try {
                RedisOutcomeCache cache = RedisOutcomeCache.builder(connections).openFor(Duration.ofMinutes(1))
                        .build();
                CountDownLatch start = new CountDownLatch(1);
                List<Future<OutcomeCache.Entry>> entries = new ArrayList<>();
                for (int request = 0; request < 20; request++) {
                    entries.add(requests.submit(() -> {
                        start.await();
                        return timed(() -> cache.enter(scope, fingerprint(), false));
                    }));
                }
                start.countDown();
                for (Future<OutcomeCache.Entry> entry : entries) {
                    assertThat(entry.get(60, TimeUnit.SECONDS)).isEqualTo(OutcomeCache.Unknown.INSTANCE);
                }
                assertThat(cache.statistics().skipped()).as("requests that did not wait for the connection")
                        .isPositive();
            } finally {
                requests.shutdownNow();
                connections.destroy();
            }
        }
    }

    @Test
    void aKilledRedisCostsEachCallAtMostTheTimeoutAndIsUsedAgainOnceRestarted() {
        withOwnRedis((server, cache) -> {
            cache.remember(scope, outcome());
            assertThat(cache.enter(scope, fingerprint(), false)).isInstanceOf(OutcomeCache.Finished.class);

            server.kill();
            for (int call = 0; call < 5; call++) {
                assertThat(timed(() -> cache.enter(scope, fingerprint(), false)))
                        .isEqualTo(OutcomeCache.Unknown.INSTANCE);
            }
            assertThat(cache.breakerState()).isEqualTo(CircuitBreaker.State.OPEN);

            server.restart();
            // Empty after the restart: the first answer that comes is a fresh marker.
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                    .until(() -> timed(() -> cache.enter(scope, fingerprint(), false)) instanceof OutcomeCache.Entered);
            cache.remember(scope, outcome());
            assertThat(cache.enter(scope, fingerprint(), false)).isInstanceOf(OutcomeCache.Finished.class);
            assertThat(cache.breakerState()).isNotEqualTo(CircuitBreaker.State.OPEN);
        });
    }

    @Test
    void aRedisThatStopsAnsweringCostsEachCallAtMostTheTimeoutAndIsUsedAgainOnceItAnswers() {
        withOwnRedis((server, cache) -> {
            cache.remember(scope, outcome());

            server.freeze();
            try {
                for (int call = 0; call < 3; call++) {
                    assertThat(timed(() -> cache.enter(scope, fingerprint(), false)))
                            .isEqualTo(OutcomeCache.Unknown.INSTANCE);
                }
                assertThat(cache.breakerState()).isEqualTo(CircuitBreaker.State.OPEN);
                // The breaker counts the outcome remembered before: it opens after two of three calls failed.
                assertThat(cache.statistics().failures()).isEqualTo(2);
                assertThat(cache.statistics().skipped()).isEqualTo(1);
            } finally {
                server.thaw();
            }

            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                    .until(() -> timed(() -> cache.enter(scope, fingerprint(), false)) instanceof OutcomeCache.Finished);
        });
    }

    /** An eviction must hear when Redis could not drop an outcome, or it would be replayed after the eviction. */
    @Test
    void forgettingSaysNoWhileRedisCannotAnswerAndARepeatedForgetClearsOnceItDoes() {
        withOwnRedis((server, cache) -> {
            cache.remember(scope, outcome());

            server.freeze();
            boolean whileFrozen;
            try {
                long start = System.nanoTime();
                whileFrozen = cache.forget(scope);
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(CALL_BOUND);
            } finally {
                server.thaw();
            }

            assertThat(whileFrozen).isFalse();
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50)).until(() -> cache.forget(scope));
            assertThat(cache.enter(scope, fingerprint(), false)).isInstanceOf(OutcomeCache.Entered.class);
        });
    }

    /** Runs {@code test} with a cache in front of a Redis of its own, which it may kill or freeze. */
    private static void withOwnRedis(BiConsumer<RedisServerProcess, RedisOutcomeCache> test) {
        try (RedisServerProcess server = RedisServerProcess.start()) {
            LettuceConnectionFactory connections = TestRedis.failFast(server.port());
            try {
                test.accept(server, RedisOutcomeCache.builder(connections).openFor(Duration.ofMillis(300)).build());
            } finally {
                connections.destroy();
            }
        }
    }

    private static OutcomeCache.Entry timed(Supplier<OutcomeCache.Entry> call) {
        long start = System.nanoTime();
        OutcomeCache.Entry entry = call.get();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(CALL_BOUND);
        return entry;
    }

    private static Fingerprint fingerprint() {
        return Fingerprint.ofDigest(Fingerprint.builder().rawBody("a".getBytes(StandardCharsets.UTF_8)).build()
                .digest());
    }

    private static CachedOutcome outcome() {
        return new CachedOutcome(fingerprint(), StoredResponse.of(201, "created".getBytes(StandardCharsets.UTF_8)),
                Instant.now().plusSeconds(600));
    }
}
