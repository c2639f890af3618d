package dev.onceonly.example;

import static dev.onceonly.example.DemoClient.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceonly.redis.RedisOutcomeCache;
import dev.onceonly.redis.RedisServerProcess;
import dev.onceonly.spring.boot.redis.OnceOnlyRedis;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Two instances of the reference service sharing PostgreSQL and a Redis of the test's own: hot replays on either
 * touch no database, a same-key storm across both makes one order without exhausting either pool, and Redis
 * freezing under load costs time, never an order, and is used again once it answers.
 */
@Timeout(300)
class RedisFastLayerIT {

    private static final String ORDER = "{\"skuId\": 42, \"quantity\": 2}";
    private static final RedisServerProcess REDIS = RedisServerProcess.start();
    private static InProcessInstance first;
    private static InProcessInstance second;

    @BeforeAll
    static void startTwoInstances() {
        Map<String, Object> shared = Map.of(
                "spring.datasource.url", System.getProperty("onceonly.test.postgres.url",
                        "jdbc:postgresql://127.0.0.1:5432/test?user=postgres") + "&currentSchema=onceonly_example",
                "spring.flyway.schemas", "onceonly_example",
                "spring.data.redis.port", REDIS.port(),
                // Small pools: a storm that took a connection per duplicate would exhaust them at once.
                "spring.datasource.hikari.maximum-pool-size", 4,
                "spring.datasource.hikari.connection-timeout", 2_000,
                "onceonly.redis.breaker-open-for", "500ms",
                // Nothing in the background reads the record table while statements are counted.
                "onceonly.cleanup.enabled", false);
        first = InProcessInstance.start("first", shared);
        second = InProcessInstance.start("second", shared);
    }

    @AfterAll
    static void stop() {
        first.close();
        second.close();
        REDIS.close();
    }

    /**
     * The first execution leaves its outcome to the store and its marker to Redis; the first replay, on the instance
     * that never saw the request, reads the record once and gives Redis the outcome; no replay after it, on either
     * instance, sends a statement.
     */
    @Test
    void hotReplaysTouchNoDatabaseOnEitherInstanceOnceTheFirstReplayGaveRedisTheOutcome() throws Exception {
        // Redis up and asked on both, whatever a test before did to it (froze it, opened the breakers).
        await().atMost(Duration.ofSeconds(10)).until(() -> cache(first).ping() && cache(second).ping()
                && cache(first).breakerState() == CircuitBreaker.State.CLOSED
                && cache(second).breakerState() == CircuitBreaker.State.CLOSED);
        String key = UUID.randomUUID().toString();
        long firstAtStart = first.statements();
        HttpResponse<byte[]> created = new DemoClient(first.port()).post("alice", "/api/orders", List.of(key), ORDER);
        assertThat(created.statusCode()).isEqualTo(201);
        long firstBefore = first.statements();
        assertThat(firstBefore).as("the first execution's statements, counted").isGreaterThan(firstAtStart);
        long secondAtStart = second.statements();
        HttpResponse<byte[]> replayed = new DemoClient(second.port()).post("alice", "/api/orders", List.of(key),
                ORDER);
        assertThat(replayed.body()).isEqualTo(created.body());
        long secondBefore = second.statements();
        assertThat(secondBefore - secondAtStart).as("the first replay reads the record once").isEqualTo(1);

        for (InProcessInstance instance : List.of(second, first, second)) {
            for (int replay = 0; replay < 10; replay++) {
                HttpResponse<byte[]> response = new DemoClient(instance.port()).post("alice", "/api/orders",
                        List.of(key), ORDER);
                assertThat(response.statusCode()).isEqualTo(201);
                assertThat(response.body()).isEqualTo(created.body());
                assertThat(response.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            }
        }

        assertThat(second.statements()).as("statements on the instance that never saw the request")
                .isEqualTo(secondBefore);
        assertThat(first.statements()).isEqualTo(firstBefore);
        assertThat(cache(first).statistics().hits()).as("the instance that ran it replays what the other gave Redis")
                .isPositive();
    }

    @Test
    void aSameKeyStormAcrossBothInstancesMakesOneOrderAndLeavesBothPoolsServingOtherKeys() throws Exception {
        String stormKey = UUID.randomUUID().toString();
        int storm = 200;
        int others = 40;
        int before = orders("acme bob");
        int carolBefore = orders("globex carol");
        Map<InProcessInstance, Long> toldByRedisBefore = Map.of(first, toldByRedis(first), second,
                toldByRedis(second));

        List<HttpResponse<byte[]>> responses = ConcurrentRequests.send(storm + others, i -> {
            DemoClient client = new DemoClient((i % 2 == 0 ? first : second).port());
            return i < storm ? client.post("bob", "/api/orders", List.of(stormKey), ORDER)
                    : client.post("carol", "/api/orders", List.of(UUID.randomUUID().toString()), ORDER);
        });

        assertThat(orders("acme bob")).isEqualTo(before + 1);
        assertThat(orders("globex carol")).isEqualTo(carolBefore + others);
        assertThat(responses.subList(storm, responses.size()))
                .allSatisfy(response -> assertThat(response.statusCode()).isEqualTo(201));
        byte[] order = responses.subList(0, storm).stream().filter(r -> r.statusCode() == 201).findFirst()
                .orElseThrow().body();
        assertThat(responses.subList(0, storm)).allSatisfy(response -> {
            if (response.statusCode() == 201) {
                assertThat(response.body()).isEqualTo(order);
            } else {
                assertThat(response.statusCode()).isEqualTo(409);
                assertThat(text(response)).contains("request-in-progress");
            }
        });
        // The instance that did not run the order: Redis told its duplicates (running elsewhere, or the outcome),
        // as only one attempt can set the marker and the other instance's first question finds it or the outcome.
        int ran = IntStream.range(0, storm).filter(i -> responses.get(i).statusCode() == 201
                && responses.get(i).headers().firstValue("Idempotent-Replayed").isEmpty()).findFirst().orElseThrow();
        InProcessInstance other = ran % 2 == 0 ? second : first;
        assertThat(toldByRedis(other)).isGreaterThan(toldByRedisBefore.get(other));
    }

    /** The questions Redis answered for an instance: outcomes found, markers set, markers met. */
    private static long answered(InProcessInstance instance) {
        RedisOutcomeCache.Statistics statistics = cache(instance).statistics();
        return statistics.hits() + statistics.misses() + statistics.running();
    }

    /** Answers of an instance's outcome cache that spared it the store: outcomes found, attempts running elsewhere. */
    private static long toldByRedis(InProcessInstance instance) {
        RedisOutcomeCache.Statistics statistics = cache(instance).statistics();
        return statistics.hits() + statistics.running();
    }

    @Test
    void redisFreezingUnderLoadCostsNoOrderNorMoreThanItsTimeoutAndIsUsedAgainOnceItAnswers() throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        Set<String> keys = ConcurrentHashMap.newKeySet();
        AtomicLong slowest = new AtomicLong();
        int before = orders("acme alice");
        ExecutorService load = Executors.newFixedThreadPool(8);
        List<Future<?>> workers = new ArrayList<>();
        for (int worker = 0; worker < 8; worker++) {
            workers.add(load.submit(() -> {
                while (running.get()) {
                    String key = UUID.randomUUID().toString();
                    HttpResponse<byte[]> created = timed(slowest, () -> new DemoClient(first.port())
                            .post("alice", "/api/orders", List.of(key), ORDER));
                    HttpResponse<byte[]> replay = timed(slowest, () -> new DemoClient(second.port())
                            .post("alice", "/api/orders", List.of(key), ORDER));
                    assertThat(created.statusCode()).isEqualTo(201);
                    assertThat(replay.statusCode()).isEqualTo(201);
                    assertThat(replay.body()).isEqualTo(created.body());
                    keys.add(key);
                }
                return null;
            }));
        }
        try {
            TimeUnit.SECONDS.sleep(2);
            REDIS.freeze();
            TimeUnit.SECONDS.sleep(3);
            REDIS.thaw();
            long answersAfterThaw = answered(second);
            await().atMost(Duration.ofSeconds(30)).until(() -> answered(second) > answersAfterThaw);
        } finally {
            REDIS.thaw();
            running.set(false);
            load.shutdown();
        }
        for (Future<?> worker : workers) {
            worker.get(60, TimeUnit.SECONDS);
        }

        assertThat(orders("acme alice")).isEqualTo(before + keys.size());
        assertThat(cache(first).statistics().failures()).as("Redis calls that failed while it was frozen")
                .isPositive();
        System.out.printf("Redis frozen for 3 s under load: %d orders, each once; slowest request %d ms%n",
                keys.size(), TimeUnit.NANOSECONDS.toMillis(slowest.get()));
        // The bound is Redis's timeout (200 ms) per call plus the database; Lettuce's default would be 60 s.
        assertThat(Duration.ofNanos(slowest.get())).isLessThan(Duration.ofSeconds(5));
    }

    private interface Call {
        HttpResponse<byte[]> send() throws Exception;
    }

    private static HttpResponse<byte[]> timed(AtomicLong slowest, Call call) throws Exception {
        long start = System.nanoTime();
        HttpResponse<byte[]> response = call.send();
        slowest.accumulateAndGet(System.nanoTime() - start, Math::max);
        return response;
    }

    private static RedisOutcomeCache cache(InProcessInstance instance) {
        return instance.bean(OnceOnlyRedis.class).outcomeCache();
    }

    private static int orders(String owner) {
        return first.bean(JdbcClient.class).sql("SELECT count(*) FROM orders WHERE owner = ?").param(owner)
                .query(Integer.class).single();
    }
}
