package dev.onceonly.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceonly.redis.FormTokens.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.core.StringRedisTemplate;

/** One-time form tokens on the shared Redis: consumed once, also by concurrent submissions. */
@Timeout(60)
class FormTokensIT {

    private static final StringRedisTemplate redis = TestRedis.sharedTemplate();

    private final FormTokens tokens = new FormTokens(redis, "checkout", Duration.ofMinutes(10));

    @Test
    void aTokenIsConsumedOnceAndThenKnownAsUsed() {
        String token = tokens.issue("alice");

        assertThat(tokens.consume("alice", token).outcome()).isEqualTo(Outcome.CONSUMED);
        assertThat(tokens.consume("alice", token).outcome()).isEqualTo(Outcome.ALREADY_USED);
    }

    @Test
    void ofTwentyConcurrentSubmissionsOfOneTokenExactlyOneConsumesIt() throws Exception {
        String token = tokens.issue("alice");
        ExecutorService pool = Executors.newFixedThreadPool(20);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Outcome>> outcomes = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                outcomes.add(pool.submit(() -> {
                    start.await();
                    return tokens.consume("alice", token).outcome();
                }));
            }
            start.countDown();
            List<Outcome> seen = new ArrayList<>();
            for (Future<Outcome> outcome : outcomes) {
                seen.add(outcome.get());
            }

            assertThat(seen).containsOnlyOnce(Outcome.CONSUMED).containsOnly(Outcome.CONSUMED, Outcome.ALREADY_USED);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aTokenIsBoundToItsOwnerAndFormAndGarbageIsNoToken() {
        String token = tokens.issue("alice");

        assertThat(tokens.consume("bob", token).outcome()).isEqualTo(Outcome.UNKNOWN);
        assertThat(new FormTokens(redis, "profile", Duration.ofMinutes(1)).consume("alice", token).outcome())
                .isEqualTo(Outcome.UNKNOWN);
        assertThat(tokens.consume("alice", "not a token").outcome()).isEqualTo(Outcome.UNKNOWN);
        assertThat(tokens.consume("alice", null).outcome()).isEqualTo(Outcome.UNKNOWN);
        assertThat(tokens.consume("alice", token).outcome()).isEqualTo(Outcome.CONSUMED);
    }

    @Test
    void anExpiredTokenIsUnknown() {
        FormTokens shortLived = new FormTokens(redis, "checkout", Duration.ofMillis(200));
        String token = shortLived.issue("alice");

        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                .until(() -> redis.keys("onceonly:form:*:checkout:" + token).isEmpty());

        assertThat(shortLived.consume("alice", token).outcome()).isEqualTo(Outcome.UNKNOWN);
    }

    @Test
    void aRestoredTokenCanBeConsumedAgainOnce() {
        String token = tokens.issue("alice");
        FormTokens.Consumption first = tokens.consume("alice", token);

        first.restore();
        tokens.consume("alice", token).restore();

        assertThat(tokens.consume("alice", token).outcome()).isEqualTo(Outcome.CONSUMED);
        assertThat(tokens.consume("alice", token).outcome()).isEqualTo(Outcome.ALREADY_USED);
    }
}
