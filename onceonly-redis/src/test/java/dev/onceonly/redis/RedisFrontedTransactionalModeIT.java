package dev.onceonly.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyEngineBuilder;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotentResult;
import dev.onceonly.OutcomeCodec;
import dev.onceonly.Retention;
import dev.onceonly.StoredResponse;
import dev.onceonly.jdbc.PostgresTransactionalModeIT;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.Completion;
import dev.onceonly.spi.ForwardingIdempotencyStore;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.LeaseToken;
import dev.onceonly.spi.OutcomeCache;
import dev.onceonly.spi.RecordState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The transactional-mode contract on PostgreSQL with the Redis outcome cache in front of the store: with Redis
 * up, with Redis unreachable from the start, with Redis killed in the middle of every test and started again
 * (empty) a few calls later, and with Redis frozen in the middle of every test and thawed a few calls later. The store decides every race; Redis only answers sooner.
 */
class RedisFrontedTransactionalModeIT {

    private static final LettuceConnectionFactory SHARED = TestRedis.shared();
    private static final LettuceConnectionFactory UNREACHABLE = TestRedis.failFast(closedPort());
    private static final RedisServerProcess RESTARTING = RedisServerProcess.start();
    private static final LettuceConnectionFactory RESTARTING_CONNECTIONS = TestRedis.failFast(RESTARTING.port());
    private static final RedisServerProcess FREEZING = RedisServerProcess.start();
    private static final LettuceConnectionFactory FREEZING_CONNECTIONS = TestRedis.failFast(FREEZING.port());

    /** Tests of the killed-and-restarted variant whose Redis was killed halfway. */
    private static final AtomicInteger TESTS_WITH_AN_OUTAGE = new AtomicInteger();

    /** Tests of the killed-and-restarted variant that ran. */
    private static final AtomicInteger OUTAGE_VARIANT_TESTS = new AtomicInteger();

    /** Tests of the frozen variant that ran, and those whose Redis froze halfway. */
    private static final AtomicInteger FROZEN_VARIANT_TESTS = new AtomicInteger();
    private static final AtomicInteger TESTS_WITH_A_FREEZE = new AtomicInteger();

    @AfterAll
    static void mostTestsOfTheOutageVariantsLostRedisHalfway() {
        // An outcome reaches Redis at its first replay from the store: tests without one (refused or rolled-back
        // requests, outcomes never replayed) keep Redis throughout.
        assertThat(TESTS_WITH_AN_OUTAGE.get()).isGreaterThan(OUTAGE_VARIANT_TESTS.get() / 4);
        assertThat(TESTS_WITH_A_FREEZE.get()).isGreaterThan(FROZEN_VARIANT_TESTS.get() / 4);
    }

    @AfterAll
    static void disconnect() {
        UNREACHABLE.destroy();
        RESTARTING_CONNECTIONS.destroy();
        RESTARTING.close();
        FREEZING.thaw();
        FREEZING_CONNECTIONS.destroy();
        FREEZING.close();
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
            return builder.outcomeCache(cache(SHARED)).writeOnce(true);
        }

        /** A first execution with Redis writes its record once, with its outcome: no claim, no completion. */
        @Test
        void aFirstExecutionWritesItsRecordOnceAtCommit() {
            CountingStore counting = new CountingStore(store());
            IdempotencyEngine engine = engineWithRedis(counting, SHARED);
            String owner = "once-" + UUID.randomUUID();

            IdempotentResult<Long> first = engine.execute(scope(owner), REQUEST, ORDER_ID,
                    attempt -> insertOrder(owner, 1));
            CountingStore replaying = new CountingStore(store());
            IdempotentResult<Long> replay = engineWithRedis(replaying, SHARED).execute(scope(owner), REQUEST,
                    ORDER_ID, attempt -> insertOrder(owner, 2));

            assertThat(counting.calls).containsExactly("insert-finished");
            assertThat(replay).isEqualTo(new IdempotentResult<>(first.value(), true));
            // The attempt tells Redis nothing after its commit (issue 42: a second round trip for every first
            // execution); its marker, which lasts as long as an outcome would, sends the first replay to the record.
            assertThat(replaying.calls).as("the first replay, from the store's record").containsExactly("find");
            CountingStore again = new CountingStore(store());
            assertThat(engineWithRedis(again, SHARED).execute(scope(owner), REQUEST, ORDER_ID,
                    attempt -> insertOrder(owner, 3))).isEqualTo(new IdempotentResult<>(first.value(), true));
            assertThat(again.calls).as("the next, answered by Redis").isEmpty();
            assertThat(store().find(scope(owner)).orElseThrow().state()).isEqualTo(RecordState.SUCCEEDED);
            assertThat(committedOrders(owner)).isEqualTo(1);
        }

        /** Engines with and without Redis racing for one key: the unique scope decides what Redis cannot see. */
        @Test
        void writeOnceAndClaimFirstAttemptsRacingForOneKeyMakeOneBusinessRow() throws Exception {
            for (int round = 0; round < 5; round++) {
                String owner = "race-" + UUID.randomUUID();
                List<Callable<IdempotentResult<Long>>> racers = new ArrayList<>();
                for (int i = 0; i < 16; i++) {
                    // Half the instances have their own Redis view of nothing (another prefix): they claim first.
                    IdempotencyEngine engine = i % 2 == 0 ? engineWithRedis(store(), SHARED)
                            : IdempotencyEngine.builder(store()).transactions(transactions())
                                    .waitTimeout(Duration.ofSeconds(10)).build();
                    racers.add(() -> engine.execute(scope(owner), REQUEST, ORDER_ID,
                            attempt -> insertOrder(owner, 1)));
                }
                List<IdempotentResult<Long>> results = race(racers);

                assertThat(committedOrders(owner)).isEqualTo(1);
                assertThat(results).filteredOn(result -> !result.replayed()).hasSize(1);
                assertThat(results).extracting(IdempotentResult::value).containsOnly(results.getFirst().value());
            }
        }

        /** Redis lost an outcome the database has: the write-once attempt rolls back and replays the record. */
        @Test
        void aWriteOnceAttemptThatMeetsARecordRollsItsWorkBackAndReplaysTheRecord() {
            String owner = "lost-" + UUID.randomUUID();
            long orderId = IdempotencyEngine.builder(store()).transactions(transactions()).build()
                    .execute(scope(owner), REQUEST, ORDER_ID, attempt -> insertOrder(owner, 1)).value();
            CountingStore counting = new CountingStore(store());

            IdempotentResult<Long> result = engineWithRedis(counting, SHARED).execute(scope(owner), REQUEST,
                    ORDER_ID, attempt -> insertOrder(owner, 2));

            assertThat(result).isEqualTo(new IdempotentResult<>(orderId, true));
            assertThat(committedOrders(owner)).as("the write-once attempt's order rolled back").isEqualTo(1);
            assertThat(counting.calls).containsExactly("insert-finished", "claim");
        }

        /**
         * Redis failed between the commit and the remembering (issue 39): the marker stayed, and a write-once
         * duplicate was refused as in progress for the marker's whole time to live although the outcome was
         * committed. Here Redis answers the attempt's marker, then none of its calls after the commit.
         */
        @Test
        void aDuplicateFacingAMarkerThatOutlivedACommittedAttemptReplaysTheRecord() {
            String owner = "marker-" + UUID.randomUUID();
            OutcomeCache silentAfterCommit = new SilentAfterEnter(cache(SHARED));
            long orderId = IdempotencyEngine.builder(store()).transactions(transactions())
                    .outcomeCache(silentAfterCommit).writeOnce(true).build()
                    .execute(scope(owner), REQUEST, ORDER_ID, attempt -> insertOrder(owner, 1)).value();

            IdempotentResult<Long> duplicate = IdempotencyEngine.builder(store()).transactions(transactions())
                    .waitTimeout(Duration.ofMillis(200)).outcomeCache(cache(SHARED)).writeOnce(true).build()
                    .execute(scope(owner), REQUEST, ORDER_ID, attempt -> insertOrder(owner, 2));

            assertThat(duplicate).isEqualTo(new IdempotentResult<>(orderId, true));
            assertThat(committedOrders(owner)).isEqualTo(1);
        }

        /**
         * Redis forgot an outcome the database has (its time to live is shorter than the record's; Redis restarted
         * empty): the write-once duplicate runs the work again, and a failure of that re-run was the answer instead
         * of the stored outcome (issue 39).
         */
        @Test
        void aWriteOnceRerunThatFailsAfterRedisForgotTheOutcomeIsAnsweredWithTheStoredOutcome() {
            String owner = "forgot-" + UUID.randomUUID();
            long orderId = engineWithRedis(store(), SHARED).execute(scope(owner), REQUEST, ORDER_ID,
                    attempt -> insertOrder(owner, 1)).value();
            assertThat(cache(SHARED).forget(scope(owner))).isTrue();

            IdempotentResult<Long> retry = engineWithRedis(store(), SHARED).execute(scope(owner), REQUEST, ORDER_ID,
                    attempt -> {
                        insertOrder(owner, 2);
                        throw new IllegalStateException("the re-run fails");
                    });

            assertThat(retry).isEqualTo(new IdempotentResult<>(orderId, true));
            assertThat(committedOrders(owner)).isEqualTo(1);
        }

        /** An expired record is no stored outcome: the failing re-run is the answer, and it runs once. */
        @Test
        void aWriteOnceAttemptThatFailsWhereOnlyAnExpiredRecordExistsRunsOnceAndAnswersItsFailure() {
            String owner = "expired-" + UUID.randomUUID();
            IdempotencyEngine.builder(store()).transactions(transactions()).outcomeCache(cache(SHARED))
                    .writeOnce(true).leaseDuration(Duration.ofMillis(1))
                    .retention(new Retention(Duration.ofMillis(1), Duration.ofMillis(1))).build()
                    .execute(scope(owner), REQUEST, ORDER_ID, attempt -> insertOrder(owner, 1));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> store().find(scope(owner)).orElseThrow().isExpired(Instant.now()));
            cache(SHARED).forget(scope(owner));
            AtomicInteger runs = new AtomicInteger();

            assertThatThrownBy(() -> engineWithRedis(store(), SHARED).execute(scope(owner), REQUEST, ORDER_ID,
                    attempt -> {
                        runs.incrementAndGet();
                        throw new IllegalStateException("the attempt fails");
                    })).isInstanceOf(IllegalStateException.class);

            assertThat(runs).hasValue(1);
        }

        /** Write-once is for operations whose work stays in the transaction; by default a claim comes first. */
        @Test
        void withoutWriteOnceAFirstExecutionClaimsFirstAlsoWithRedis() {
            CountingStore counting = new CountingStore(store());
            String owner = "claims-" + UUID.randomUUID();

            IdempotencyEngine.builder(counting).transactions(transactions()).outcomeCache(cache(SHARED)).build()
                    .execute(scope(owner), REQUEST, ORDER_ID, attempt -> insertOrder(owner, 1));

            assertThat(counting.calls).containsExactly("claim", "complete");
        }

        private IdempotencyEngine engineWithRedis(IdempotencyStore store, LettuceConnectionFactory redis) {
            return IdempotencyEngine.builder(store).transactions(transactions()).waitTimeout(Duration.ofSeconds(10))
                    .outcomeCache(cache(redis)).writeOnce(true).build();
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

    /** The starter's default: Redis in front, first executions claim first. */
    @Nested
    class WithRedisUpClaimingFirst extends PostgresTransactionalModeIT {
        @Override
        protected IdempotencyEngineBuilder configure(IdempotencyEngineBuilder builder) {
            return builder.outcomeCache(cache(SHARED));
        }
    }

    @Nested
    class WithRedisUnreachableFromTheStart extends PostgresTransactionalModeIT {
        @Override
        protected IdempotencyEngineBuilder configure(IdempotencyEngineBuilder builder) {
            return builder.outcomeCache(cache(UNREACHABLE)).writeOnce(true);
        }

        @AfterEach
        void redisAnsweredNothing() {
            assertThat(total(RedisOutcomeCache.Statistics::hits) + total(RedisOutcomeCache.Statistics::misses)
                    + total(RedisOutcomeCache.Statistics::running)).isZero();
        }
    }

    @Nested
    class WithRedisKilledAndRestartedMidTest extends PostgresTransactionalModeIT {
        private final List<MidTestOutage> outages = new CopyOnWriteArrayList<>();

        @Override
        protected IdempotencyEngineBuilder configure(IdempotencyEngineBuilder builder) {
            RESTARTING.restart();
            MidTestOutage outage = new MidTestOutage(RESTARTING, cache(RESTARTING_CONNECTIONS),
                    MidTestOutage.Outage.KILLED, MidTestOutage.Moment.FIRST_OUTCOME);
            outages.add(outage);
            return builder.outcomeCache(outage).writeOnce(true);
        }

        @AfterEach
        void everyKilledRedisFailedSomeCalls() {
            OUTAGE_VARIANT_TESTS.incrementAndGet();
            if (outages.stream().anyMatch(MidTestOutage::struck)) {
                TESTS_WITH_AN_OUTAGE.incrementAndGet();
                assertThat(total(RedisOutcomeCache.Statistics::failures)).isPositive();
            }
        }
    }

    /**
     * Issue 39: Redis frozen (SIGSTOP) in the middle of every test, with write-once on: connections stay open and
     * nothing answers, so each call waits out the client's timeout until the breaker opens.
     */
    @Nested
    class WithRedisFrozenMidTest extends PostgresTransactionalModeIT {
        private final List<MidTestOutage> outages = new CopyOnWriteArrayList<>();

        @Override
        protected IdempotencyEngineBuilder configure(IdempotencyEngineBuilder builder) {
            MidTestOutage outage = new MidTestOutage(FREEZING, cache(FREEZING_CONNECTIONS),
                    MidTestOutage.Outage.FROZEN, MidTestOutage.Moment.FIRST_OUTCOME);
            outages.add(outage);
            return builder.outcomeCache(outage).writeOnce(true);
        }

        @AfterEach
        void everyFrozenRedisFailedSomeCallsAndIsThawed() {
            boolean struck = outages.stream().anyMatch(MidTestOutage::struck);
            FREEZING.thaw();
            FROZEN_VARIANT_TESTS.incrementAndGet();
            if (struck) {
                TESTS_WITH_A_FREEZE.incrementAndGet();
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

    private static final Fingerprint REQUEST = Fingerprint.builder().rawBody("order".getBytes(StandardCharsets.UTF_8))
            .build();
    private static final OutcomeCodec<Long> ORDER_ID = OutcomeCodec.of(
            id -> StoredResponse.of(201, id.toString().getBytes(StandardCharsets.UTF_8)),
            stored -> Long.parseLong(stored.bodyAsString()));

    /** One key per owner: each test's scope. */
    private static IdempotencyScope scope(String owner) {
        return new IdempotencyScope(owner, "create-order", IdempotencyKey.of("key-of-" + owner));
    }

    private static <T> List<T> race(List<Callable<T>> racers) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        try (ExecutorService threads = Executors.newFixedThreadPool(racers.size())) {
            List<Future<T>> futures = new ArrayList<>();
            for (Callable<T> racer : racers) {
                futures.add(threads.submit(() -> {
                    start.await();
                    return racer.call();
                }));
            }
            start.countDown();
            List<T> results = new ArrayList<>();
            for (Future<T> future : futures) {
                results.add(future.get(60, TimeUnit.SECONDS));
            }
            return results;
        }
    }

    /** Names the store calls that write, claim or read, in order. */
    private static final class CountingStore extends ForwardingIdempotencyStore {
        final List<String> calls = new CopyOnWriteArrayList<>();

        CountingStore(IdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        public boolean insertsFinished() {
            return delegate().insertsFinished();
        }

        @Override
        public ClaimResult claim(ClaimRequest request, Instant now) {
            calls.add("claim");
            return super.claim(request, now);
        }

        @Override
        public boolean complete(IdempotencyScope scope, LeaseToken token, Completion completion, Instant now) {
            calls.add("complete");
            return super.complete(scope, token, completion, now);
        }

        @Override
        public Insertion insertFinished(ClaimRequest request, Completion completion, Instant now) {
            calls.add("insert-finished");
            return super.insertFinished(request, completion, now);
        }

        @Override
        public Optional<IdempotencyRecord> find(IdempotencyScope scope) {
            calls.add("find");
            return super.find(scope);
        }
    }
}
