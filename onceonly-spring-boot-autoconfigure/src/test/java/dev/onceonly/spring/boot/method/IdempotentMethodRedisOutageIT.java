package dev.onceonly.spring.boot.method;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.onceonly.IdempotencyKeyReusedException;
import dev.onceonly.redis.RedisServerProcess;
import dev.onceonly.spring.boot.method.MethodOrders.CreateOrder;
import dev.onceonly.spring.boot.method.MethodOrders.OrderView;
import dev.onceonly.spring.boot.redis.OnceOnlyRedis;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The seed article's last case: Redis, the fast layer in front of PostgreSQL, dies (a redis-server of the test's own,
 * killed); every mode still runs each call once, replays it and refuses a reused key, from PostgreSQL alone.
 */
@Timeout(120)
@SpringBootTest(classes = MethodOrdersApplication.class, properties = {
        "spring.datasource.url=${onceonly.test.postgres.url:jdbc:postgresql://127.0.0.1:5432/test?user=postgres}",
        // The shared test database holds other tests' tables; the store migrates its own, under its own history.
        "spring.flyway.enabled=false",
        "onceonly.wait-timeout=20s",
        // The test threads call without a principal.
        "onceonly.method.allow-anonymous=true"})
class IdempotentMethodRedisOutageIT {

    private static final RedisServerProcess REDIS = RedisServerProcess.start();

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry properties) {
        properties.add("spring.data.redis.host", () -> "127.0.0.1");
        properties.add("spring.data.redis.port", REDIS::port);
        properties.add("onceonly.redis.prefix", () -> "method-outage-" + UUID.randomUUID());
    }

    @AfterAll
    static void stopRedis() {
        REDIS.close();
    }

    @Autowired
    MethodOrders orders;
    @Autowired
    TransactionTemplate transactions;
    @Autowired
    OnceOnlyRedis redis;

    private final CreateOrder order = new CreateOrder("sku-1", 2, null);

    @ParameterizedTest
    @EnumSource(MethodMode.class)
    void withRedisDeadEveryCallStillTakesEffectOnce(MethodMode mode) throws Exception {
        // A restarted Redis is empty: once outcomes reach it again (the breaker of the last outage has closed; an
        // outcome reaches Redis at its first replay), the fast layer is in use.
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
            String key = UUID.randomUUID().toString();
            mode.call(orders, transactions, "alice", key, order);
            mode.call(orders, transactions, "alice", key, order);
            assertThat(redis.template().keys("*")).isNotEmpty();
        });
        String before = UUID.randomUUID().toString();
        OrderView first = mode.call(orders, transactions, "alice", before, order);

        REDIS.kill();
        try {
            assertThat(mode.call(orders, transactions, "alice", before, order)).isEqualTo(first);

            String during = UUID.randomUUID().toString();
            orders.workFor(Duration.ofMillis(300));
            int runs = orders.runs();
            try {
                List<OrderView> results = mode.concurrently(20, orders, transactions, "alice", during, order);
                assertThat(results).hasSize(20).containsOnly(results.getFirst());
            } finally {
                orders.workFor(Duration.ZERO);
            }
            assertThat(orders.runs() - runs).isEqualTo(1);
            assertThatThrownBy(() -> mode.call(orders, transactions, "alice", during,
                    new CreateOrder("sku-2", 2, null))).isInstanceOf(IdempotencyKeyReusedException.class);
            assertThat(orders.rows(before)).isEqualTo(1);
            assertThat(orders.rows(during)).isEqualTo(1);
        } finally {
            REDIS.restart();
        }
    }
}
