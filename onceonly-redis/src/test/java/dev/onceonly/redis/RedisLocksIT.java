package dev.onceonly.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * Owner-token locks on the shared Redis: only the owner extends or releases, a stale owner is refused by a fenced
 * write on PostgreSQL, and fencing tokens only increase, also after Redis forgot its counter.
 */
@Timeout(60)
class RedisLocksIT {

    private static final StringRedisTemplate redis = TestRedis.sharedTemplate();

    private final RedisLocks locks = new RedisLocks(redis);
    private final String name = "it:" + UUID.randomUUID();

    @Test
    void aHeldLockIsRefusedToOthersUntilReleasedAndEachAcquisitionFencesHigher() {
        long first;
        try (RedisLocks.Lock lock = locks.acquire(name, Duration.ofMinutes(1))) {
            first = lock.fencingToken();
            assertThatThrownBy(() -> locks.acquire(name, Duration.ofMinutes(1)))
                    .isInstanceOf(RedisLocks.LockNotAcquiredException.class);
        }
        try (RedisLocks.Lock again = locks.acquire(name, Duration.ofMinutes(1))) {
            assertThat(again.fencingToken()).isGreaterThan(first);
        }
    }

    @Test
    void anOwnerWhoseLockExpiredAndWasTakenCannotReleaseNorExtendItAndItsFencedWriteIsRefused() {
        JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(System.getProperty(
                "onceonly.test.postgres.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres")));
        jdbc.execute("CREATE TABLE IF NOT EXISTS onceonly_it_fenced (name varchar(255) PRIMARY KEY,"
                + " fence bigint NOT NULL, writer varchar(16) NOT NULL)");
        jdbc.update("INSERT INTO onceonly_it_fenced (name, fence, writer) VALUES (?, 0, 'nobody')", name);

        RedisLocks.Lock stale = locks.acquire(name, Duration.ofMillis(200));
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                .until(() -> !redis.hasKey("onceonly:lock:{" + name + "}"));
        RedisLocks.Lock current = locks.acquire(name, Duration.ofMinutes(1));

        assertThat(stale.extend(Duration.ofMinutes(1))).isFalse();
        assertThat(stale.release()).isFalse();
        assertThatThrownBy(() -> locks.acquire(name, Duration.ofMinutes(1)))
                .as("the current owner still holds it").isInstanceOf(RedisLocks.LockNotAcquiredException.class);
        assertThat(current.extend(Duration.ofMinutes(2))).isTrue();

        String fencedWrite = "UPDATE onceonly_it_fenced SET fence = ?, writer = ? WHERE name = ? AND fence < ?";
        assertThat(jdbc.update(fencedWrite, current.fencingToken(), "current", name, current.fencingToken()))
                .isEqualTo(1);
        assertThat(jdbc.update(fencedWrite, stale.fencingToken(), "stale", name, stale.fencingToken()))
                .isZero();
        assertThat(jdbc.queryForObject("SELECT writer FROM onceonly_it_fenced WHERE name = ?", String.class, name))
                .isEqualTo("current");
        assertThat(current.release()).isTrue();
    }

    @Test
    void fencingTokensStillIncreaseAfterRedisForgotTheCounter() {
        long before;
        try (RedisLocks.Lock lock = locks.acquire(name, Duration.ofMinutes(1))) {
            before = lock.fencingToken();
        }
        redis.delete("onceonly:lock:{" + name + "}:fence");

        try (RedisLocks.Lock lock = locks.acquire(name, Duration.ofMinutes(1))) {
            assertThat(lock.fencingToken()).isGreaterThan(before);
        }
    }

    @Test
    void anAcquireThatMayWaitGetsTheLockOnceItsHolderReleasesIt() throws Exception {
        RedisLocks.Lock holder = locks.acquire(name, Duration.ofMinutes(1));
        CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
            try (RedisLocks.Lock lock = locks.acquire(name, Duration.ofMinutes(1), Duration.ofSeconds(20))) {
                return lock.fencingToken();
            }
        });

        holder.release();

        assertThat(waiter.get(30, TimeUnit.SECONDS)).isGreaterThan(holder.fencingToken());
    }
}
