package dev.onceonly.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.StoredResponse;
import dev.onceonly.spi.CachedOutcome;
import dev.onceonly.spi.OutcomeCache;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/** The Redis outcome cache on the shared Redis: what each script answers, what it keeps, and for how long. */
@Timeout(60)
class RedisOutcomeCacheIT {

    private static final LettuceConnectionFactory connections = TestRedis.shared();
    private static final StringRedisTemplate redis = TestRedis.sharedTemplate();

    private final String prefix = "outcome-it-" + UUID.randomUUID();
    private final RedisOutcomeCache cache = RedisOutcomeCache.builder(connections).prefix(prefix).build();
    private final IdempotencyScope scope = new IdempotencyScope("alice", "create-order",
            IdempotencyKey.of("key-in-clear-" + UUID.randomUUID()));

    @Test
    void theFirstEntersTheSecondSeesItRunningWithItsFingerprintAndLeavingFreesTheScope() {
        OutcomeCache.Entry first = cache.enter(scope, fingerprint("a"), false);
        OutcomeCache.Entry second = cache.enter(scope, fingerprint("b"), false);

        assertThat(first).isInstanceOf(OutcomeCache.Entered.class);
        assertThat(second).isEqualTo(new OutcomeCache.Running(fingerprint("a")));

        cache.leave(scope, new OutcomeCache.Marker(UUID.randomUUID().toString()));
        assertThat(cache.enter(scope, fingerprint("a"), false)).as("another attempt's leave keeps the marker")
                .isInstanceOf(OutcomeCache.Running.class);

        cache.leave(scope, ((OutcomeCache.Entered) first).marker());
        assertThat(cache.enter(scope, fingerprint("a"), false)).isInstanceOf(OutcomeCache.Entered.class);
        assertThat(cache.statistics()).isEqualTo(new RedisOutcomeCache.Statistics(0, 2, 2, 0, 0));
    }

    @Test
    void aRememberedOutcomeIsFoundWholeAndEndsTheMarker() {
        cache.enter(scope, fingerprint("a"), false);
        StoredResponse response = StoredResponse.of(201, Map.of("Content-Type", List.of("application/json"),
                        "Location", List.of("/api/orders/7")), "{\"id\":7}".getBytes(StandardCharsets.UTF_8),
                "7");
        CachedOutcome outcome = new CachedOutcome(fingerprint("a"), response,
                Instant.now().plus(Duration.ofDays(1)).truncatedTo(ChronoUnit.MILLIS));

        cache.remember(scope, outcome);

        assertThat(cache.enter(scope, fingerprint("b"), false)).isEqualTo(new OutcomeCache.Finished(outcome));
        assertThat(redis.keys(prefix + ":*")).containsExactly(prefix + ":{" + scope.id() + "}:o");
    }

    @Test
    void forgettingDropsTheOutcomeAndAnyMarkerAndSaysSo() {
        IdempotencyScope running = new IdempotencyScope("alice", "create-order",
                IdempotencyKey.of("running-" + UUID.randomUUID()));
        cache.remember(scope, new CachedOutcome(fingerprint("a"), StoredResponse.of(201, new byte[0]),
                Instant.now().plus(Duration.ofDays(1))));
        cache.enter(running, fingerprint("a"), false);

        boolean outcomeForgotten = cache.forget(scope);
        boolean markerForgotten = cache.forget(running);

        assertThat(outcomeForgotten).isTrue();
        assertThat(markerForgotten).isTrue();
        assertThat(redis.keys(prefix + ":*")).isEmpty();
        assertThat(cache.enter(scope, fingerprint("a"), false)).isInstanceOf(OutcomeCache.Entered.class);
        assertThat(cache.enter(running, fingerprint("b"), false)).isInstanceOf(OutcomeCache.Entered.class);
        assertThat(cache.forget(new IdempotencyScope("alice", "create-order", IdempotencyKey.of(
                "never-" + UUID.randomUUID())))).as("nothing to forget is forgotten").isTrue();
    }

    @Test
    void aDamagedOrForeignValueIsNoAnswerNeverAFailure() {
        byte[] key = (prefix + ":{" + scope.id() + "}:o").getBytes(StandardCharsets.UTF_8);
        byte[] valid = OutcomeFormat.write(outcome(Instant.now().plusSeconds(60)));
        // The header count of the value above sits after format, fingerprint, expiry, status and "no resource id".
        int headerCount = 1 + 32 + 8 + 4 + 1;
        byte[] hugeCount = valid.clone();
        ByteBuffer.wrap(hugeCount, headerCount, 4).putInt(Integer.MAX_VALUE);
        for (byte[] value : List.of("not an outcome".getBytes(StandardCharsets.UTF_8), Arrays.copyOf(valid, 45),
                hugeCount, Arrays.copyOf(valid, valid.length - 2))) {
            redis.execute((RedisCallback<Object>) connection -> connection.stringCommands().set(key, value));

            assertThat(cache.enter(scope, fingerprint("a"), false)).isEqualTo(OutcomeCache.Unknown.INSTANCE);
        }
    }

    @Test
    void aMarkerTooShortToBeOursIsNoAnswer() {
        redis.opsForValue().set(prefix + ":{" + scope.id() + "}:m", "short");

        assertThat(cache.enter(scope, fingerprint("a"), false)).isEqualTo(OutcomeCache.Unknown.INSTANCE);
    }

    /**
     * Until its first replay brings its outcome, the marker of an attempt that wrote its record once is all that
     * tells a retry the key was used (issue 42: the outcome no longer reaches Redis from the attempt, a second
     * round trip for every first execution): it lasts as long as an outcome would.
     */
    @Test
    void aWriteOnceAttemptsMarkerLastsAsLongAsAnOutcomeAndAClaimingOnesAsLongAsItMayRun() {
        RedisOutcomeCache cache = RedisOutcomeCache.builder(connections).prefix(prefix)
                .markerTtl(Duration.ofSeconds(10)).maxTimeToLive(Duration.ofMinutes(5)).build();
        IdempotencyScope claiming = new IdempotencyScope("alice", "create-order",
                IdempotencyKey.of(UUID.randomUUID().toString()));

        cache.enter(scope, fingerprint("a"), true);
        cache.enter(claiming, fingerprint("a"), false);

        assertThat(redis.getExpire(prefix + ":{" + scope.id() + "}:m")).isBetween(290L, 300L);
        assertThat(redis.getExpire(prefix + ":{" + claiming.id() + "}:m")).isBetween(1L, 10L);
    }

    /**
     * Past the marker time to live from its attempt's start (by Redis's own clock), the attempt ended or died: the
     * next attempt takes the marker over, and its own duplicates then wait for it.
     */
    @Test
    void aMarkerPastTheMarkerTimeToLiveIsTakenOverByTheNextAttempt() {
        RedisOutcomeCache cache = RedisOutcomeCache.builder(connections).prefix(prefix)
                .markerTtl(Duration.ofMillis(300)).maxTimeToLive(Duration.ofMinutes(5)).build();
        cache.enter(scope, fingerprint("a"), true);

        assertThat(cache.enter(scope, fingerprint("b"), true)).isEqualTo(new OutcomeCache.Running(fingerprint("a")));
        await().atMost(Duration.ofSeconds(10)).until(() -> cache.enter(scope, fingerprint("b"), true)
                instanceof OutcomeCache.Entered entered && !entered.fresh());
        assertThat(cache.enter(scope, fingerprint("c"), true)).isEqualTo(new OutcomeCache.Running(fingerprint("b")));
        OutcomeCache.Entered fresh = (OutcomeCache.Entered) cache.enter(new IdempotencyScope("bob", "create-order",
                IdempotencyKey.of(UUID.randomUUID().toString())), fingerprint("a"), true);
        assertThat(fresh.fresh()).isTrue();
    }

    /** One without a life, of an earlier version or damaged, is another attempt's until its own time to live. */
    @Test
    void aMarkerWithoutItsLifeIsNeverTakenOver() {
        String marker = prefix + ":{" + scope.id() + "}:m";
        byte[] digestAndToken = Arrays.copyOf(fingerprint("a").digest(), 64);
        for (byte[] value : List.of(digestAndToken, Arrays.copyOf(digestAndToken, 70))) {
            redis.execute((RedisCallback<Object>) connection -> connection.stringCommands().set(
                    marker.getBytes(StandardCharsets.UTF_8), value));

            assertThat(cache.enter(scope, fingerprint("b"), false)).isEqualTo(new OutcomeCache.Running(
                    fingerprint("a")));
        }
    }

    @Test
    void anOutcomeIsKeptNoLongerThanItsRecordNorTheLongestTimeToLive() {
        RedisOutcomeCache shortLived = RedisOutcomeCache.builder(connections).prefix(prefix)
                .maxTimeToLive(Duration.ofMinutes(5)).build();
        IdempotencyScope other = new IdempotencyScope("alice", "create-order", IdempotencyKey.of(UUID.randomUUID().toString()));

        shortLived.remember(scope, outcome(Instant.now().plusSeconds(30)));
        shortLived.remember(other, outcome(Instant.now().plus(Duration.ofDays(1))));

        assertThat(redis.getExpire(prefix + ":{" + scope.id() + "}:o")).isBetween(1L, 30L);
        assertThat(redis.getExpire(prefix + ":{" + other.id() + "}:o")).isBetween(250L, 300L);
    }

    @Test
    void expiredOutcomesAndLargeBodiesAreNotKept() {
        RedisOutcomeCache small = RedisOutcomeCache.builder(connections).prefix(prefix).maxBodyBytes(4).build();

        IdempotencyScope large = new IdempotencyScope("bob", "create-order",
                IdempotencyKey.of(UUID.randomUUID().toString()));
        small.enter(scope, fingerprint("a"), false);
        small.enter(large, fingerprint("a"), false);

        small.remember(scope, outcome(Instant.now().minusSeconds(1)));
        small.remember(large, outcome(Instant.now().plusSeconds(60)));

        assertThat(redis.keys(prefix + ":*")).as("neither outcome; the expired one's marker goes, the large one's"
                + " stays to its end, for its duplicates to read the store").containsExactly(prefix + ":{" + large.id()
                + "}:m");
    }

    @Test
    void bothKeysOfAScopeShareOneHashTagAndNameNoPartOfTheScopeInClear() {
        cache.enter(scope, fingerprint("a"), false);
        cache.remember(new IdempotencyScope("bob", "pay", IdempotencyKey.of(UUID.randomUUID().toString())), outcome(Instant.now()
                .plusSeconds(60)));
        cache.enter(scope, fingerprint("a"), false);

        Set<String> keys = redis.keys(prefix + ":*");
        assertThat(keys).hasSize(2).allMatch(key -> key.matches(Pattern.quote(prefix)
                + ":\\{[A-Za-z0-9_-]{43}\\}:[om]"));
        assertThat(keys).noneMatch(key -> key.contains("key-in-clear") || key.contains("alice")
                || key.contains("create-order"));
        assertThat(keys).contains(prefix + ":{" + scope.id() + "}:m");
    }

    private static CachedOutcome outcome(Instant expiresAt) {
        return new CachedOutcome(fingerprint("a"), StoredResponse.of(201, "created".getBytes(StandardCharsets.UTF_8)),
                expiresAt);
    }

    private static Fingerprint fingerprint(String request) {
        return Fingerprint.ofDigest(Fingerprint.builder().rawBody(request.getBytes(StandardCharsets.UTF_8)).build()
                .digest());
    }
}
