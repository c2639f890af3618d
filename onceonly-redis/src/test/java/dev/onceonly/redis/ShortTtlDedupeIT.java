package dev.onceonly.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.onceonly.RequestInProgressException;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/** The short-TTL dedupe on the shared Redis (127.0.0.1:6379): once within the TTL, again after a failure. */
@Timeout(60)
class ShortTtlDedupeIT {

    private static LettuceConnectionFactory connections;
    private static StringRedisTemplate redis;

    private final String namespace = "dedupe-it-" + UUID.randomUUID();
    private final AtomicInteger effects = new AtomicInteger();

    @BeforeAll
    static void connect() {
        connections = factory(Integer.getInteger("onceonly.test.redis.port", 6379));
        redis = new StringRedisTemplate(connections);
    }

    @AfterAll
    static void disconnect() {
        connections.destroy();
    }

    @Test
    void sameKeyThreeTimesRunsTheEffectOnce() {
        ShortTtlDedupe dedupe = new ShortTtlDedupe(redis, namespace, Duration.ofMinutes(10), Duration.ofMinutes(1));

        List<Boolean> ran = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ran.add(dedupe.runOnce("order-7:sms.sent", effects::incrementAndGet));
        }

        assertThat(ran).containsExactly(true, false, false);
        assertThat(effects).hasValue(1);
    }

    @Test
    void concurrentCallsOfOneKeyRunTheEffectOnceAndTheOthersAreDuplicatesOrInProgress() throws Exception {
        ShortTtlDedupe dedupe = new ShortTtlDedupe(redis, namespace, Duration.ofMinutes(10), Duration.ofMinutes(1));
        CountDownLatch start = new CountDownLatch(1);
        List<Future<String>> outcomes = new ArrayList<>();
        try (ExecutorService threads = Executors.newFixedThreadPool(16)) {
            for (int i = 0; i < 16; i++) {
                outcomes.add(threads.submit(() -> {
                    start.await();
                    try {
                        return dedupe.runOnce("evt-1", effects::incrementAndGet) ? "ran" : "duplicate";
                    } catch (RequestInProgressException e) {
                        return "in-progress";
                    }
                }));
            }
            start.countDown();
            List<String> seen = new ArrayList<>();
            for (Future<String> outcome : outcomes) {
                seen.add(outcome.get(10, TimeUnit.SECONDS));
            }
            assertThat(seen).filteredOn("ran"::equals).hasSize(1);
        }
        assertThat(effects).hasValue(1);
    }

    @Test
    void effectThatFailsFreesItsKeySoTheRedeliveryRunsIt() {
        ShortTtlDedupe dedupe = new ShortTtlDedupe(redis, namespace, Duration.ofMinutes(10), Duration.ofMinutes(1));

        assertThatThrownBy(() -> dedupe.runOnce("evt-2", () -> {
            throw new IOException("the SMS gateway refused");
        })).isInstanceOf(IOException.class);

        assertThat(dedupe.runOnce("evt-2", effects::incrementAndGet)).isTrue();
        assertThat(effects).hasValue(1);
    }

    @Test
    void keyHeldByARunningClaimIsInProgressAndAClaimWhoseProcessDiedRunsAgainAfterItsLease() throws Exception {
        ShortTtlDedupe dedupe = new ShortTtlDedupe(redis, namespace, Duration.ofMinutes(10), Duration.ofMillis(500));
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        try (ExecutorService thread = Executors.newSingleThreadExecutor()) {
            Future<Boolean> first = thread.submit(() -> dedupe.runOnce("evt-3", () -> {
                running.countDown();
                finish.await();
            }));
            assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(() -> dedupe.runOnce("evt-3", effects::incrementAndGet))
                    .isInstanceOf(RequestInProgressException.class);

            try {
                // The first effect outlives its lease, as one whose process died would: the key runs again.
                await().atMost(Duration.ofSeconds(10)).ignoreException(RequestInProgressException.class)
                        .until(() -> dedupe.runOnce("evt-3", effects::incrementAndGet));
            } finally {
                finish.countDown();
            }
            assertThat(first.get(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(effects).hasValue(1);
    }

    @Test
    void keyRunsAgainOnceItsTtlIsOver() {
        ShortTtlDedupe dedupe = new ShortTtlDedupe(redis, namespace, Duration.ofMillis(300), Duration.ofMinutes(1));
        assertThat(dedupe.runOnce("evt-4", effects::incrementAndGet)).isTrue();

        await().atMost(Duration.ofSeconds(10)).until(() -> dedupe.runOnce("evt-4", effects::incrementAndGet));
        assertThat(effects).hasValue(2);
    }

    @Test
    void unreachableRedisRunsNothingAndSaysSo() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        LettuceConnectionFactory unreachable = factory(closedPort);
        try {
            ShortTtlDedupe dedupe = new ShortTtlDedupe(new StringRedisTemplate(unreachable), namespace,
                    Duration.ofMinutes(10), Duration.ofMinutes(1));

            assertThatThrownBy(() -> dedupe.runOnce("evt-5", effects::incrementAndGet))
                    .isInstanceOf(DataAccessException.class);
            assertThat(effects).hasValue(0);
        } finally {
            unreachable.destroy();
        }
    }

    private static LettuceConnectionFactory factory(int port) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1",
                port), LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }
}
