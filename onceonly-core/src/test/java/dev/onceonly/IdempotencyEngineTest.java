package dev.onceonly;

import static dev.onceonly.TestRequests.TEXT;
import static dev.onceonly.TestRequests.request;
import static dev.onceonly.TestRequests.withStatus;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.OutcomePolicy.Decision;
import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.Completion;
import dev.onceonly.spi.ForwardingIdempotencyStore;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.LeaseToken;
import dev.onceonly.spi.Release;
import dev.onceonly.spi.RecordState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The engine's leased mode on the in-memory store; transactional mode is tested on PostgreSQL. */
@Timeout(60)
class IdempotencyEngineTest {

    private static final Instant START = Instant.parse("2030-01-01T00:00:00Z");
    private static final Duration LEASE = Duration.ofSeconds(30);

    private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
    private final IdempotencyScope scope = new IdempotencyScope("alice", "create-order",
            IdempotencyKey.of(UUID.randomUUID().toString()));
    private final AtomicInteger executions = new AtomicInteger();

    private IdempotencyEngine engineAt(Duration sinceStart) {
        return IdempotencyEngine.builder(store)
                .clock(Clock.fixed(START.plus(sinceStart), ZoneOffset.UTC))
                .leaseDuration(LEASE)
                .waitTimeout(Duration.ZERO)
                .build();
    }

    private final IdempotencyEngine engine = engineAt(Duration.ZERO);

    @Test
    void firstExecutionRunsTheWorkAndDuplicatesReplayItsResult() {
        IdempotentResult<String> first = engine.execute(scope, request("a"), TEXT, attempt -> order("created-1"));

        IdempotentResult<String> second = engine.execute(scope, request("a"), TEXT, attempt -> order("created-2"));

        assertThat(first).isEqualTo(new IdempotentResult<>("created-1", false));
        assertThat(second).isEqualTo(new IdempotentResult<>("created-1", true));
        assertThat(executions).hasValue(1);
        assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.SUCCEEDED);
    }

    @Test
    void keyReusedWithAnotherRequestIsRefused() {
        engine.execute(scope, request("a"), TEXT, attempt -> order("created"));

        assertThatThrownBy(() -> engine.execute(scope, request("b"), TEXT, attempt -> order("other")))
                .isInstanceOfSatisfying(IdempotencyKeyReusedException.class, e -> {
                    assertThat(e.problemType()).isEqualTo("idempotency-key-reused");
                    assertThat(e.scope()).isEqualTo(scope);
                });
        assertThat(executions).hasValue(1);
    }

    @Test
    void sameKeyOfAnotherOwnerRunsIndependently() {
        IdempotencyScope bobs = new IdempotencyScope("bob", scope.operation(), scope.key());
        engine.execute(scope, request("a"), TEXT, attempt -> order("alice's"));

        IdempotentResult<String> forBob = engine.execute(bobs, request("a"), TEXT, attempt -> order("bob's"));

        assertThat(forBob).isEqualTo(new IdempotentResult<>("bob's", false));
    }

    @Test
    void exceptionReleasesTheKeyAndTheRetryRunsAgain() throws Exception {
        assertThatThrownBy(() -> engine.execute(scope, request("a"), TEXT, attempt -> {
            executions.incrementAndGet();
            throw new IOException("connection reset by the payment provider");
        })).isInstanceOf(IOException.class);
        assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.FAILED_RETRYABLE);

        IdempotentResult<String> retry = engine.execute(scope, request("a"), TEXT, attempt -> order("created"));

        assertThat(retry).isEqualTo(new IdempotentResult<>("created", false));
        assertThat(executions).hasValue(2);
        assertThat(store.find(scope).orElseThrow().attempt()).isEqualTo(2);
    }

    @Test
    void workWhoseOutcomeIsUnknownIsNeverRunAgainAndEveryRetryGetsItsStoredOutcome() {
        StoredResponse unknown = StoredResponse.of(500, "went asynchronous".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> engine.execute(scope, request("a"), TEXT, attempt -> {
            executions.incrementAndGet();
            throw OutcomeUnknownException.storing("the work went on asynchronously", unknown);
        })).isInstanceOf(OutcomeUnknownException.class);

        IdempotentResult<String> retry = engine.execute(scope, request("a"), TEXT, attempt -> order("created"));

        assertThat(retry).isEqualTo(new IdempotentResult<>("went asynchronous", true));
        assertThat(executions).hasValue(1);
        assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.FAILED_FINAL);
    }

    @Test
    void workWithoutAStorableResultUnlessRolledBackIsFinalWhereNothingRollsBack() {
        StoredResponse tooLarge = StoredResponse.of(500, "too large".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> engine.execute(scope, request("a"), TEXT, attempt -> {
            executions.incrementAndGet();
            throw OutcomeUnknownException.unlessRolledBack(new RequestTooLargeForTheTest(), "too large", tooLarge);
        })).isInstanceOf(OutcomeUnknownException.class);

        IdempotentResult<String> retry = engine.execute(scope, request("a"), TEXT, attempt -> order("created"));

        assertThat(retry).isEqualTo(new IdempotentResult<>("too large", true));
        assertThat(executions).hasValue(1);
        assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.FAILED_FINAL);
    }

    private static final class RequestTooLargeForTheTest extends IdempotencyException {

        RequestTooLargeForTheTest() {
            super("the result is larger than may be kept", false);
        }

        @Override
        public String problemType() {
            return "result-too-large";
        }
    }

    @Test
    void transientStatusIsNotStoredAndRunsAgain() {
        IdempotentResult<String> first = engine.execute(scope, request("a"), withStatus(503), attempt -> order("busy"));

        IdempotentResult<String> retry = engine.execute(scope, request("a"), TEXT, attempt -> order("created"));

        assertThat(first.replayed()).isFalse();
        assertThat(retry).isEqualTo(new IdempotentResult<>("created", false));
        assertThat(executions).hasValue(2);
    }

    @Test
    void unauthorizedIsNotStored() {
        engine.execute(scope, request("a"), withStatus(401), attempt -> order("who are you"));

        assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.FAILED_RETRYABLE);
    }

    @Test
    void deterministicRejectionIsStoredAndReplayed() {
        engine.execute(scope, request("a"), withStatus(422), attempt -> order("insufficient stock"));

        IdempotentResult<String> retry = engine.execute(scope, request("a"), TEXT, attempt -> order("created"));

        assertThat(retry).isEqualTo(new IdempotentResult<>("insufficient stock", true));
        assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.FAILED_FINAL);
        assertThat(executions).hasValue(1);
    }

    @Test
    void policyCanBeOverriddenPerStatus() {
        IdempotencyEngine lenient = IdempotencyEngine.builder(store)
                .outcomePolicy(OutcomePolicy.standard().overriding(Map.of(409, Decision.RETRYABLE)))
                .build();

        lenient.execute(scope, request("a"), withStatus(409), attempt -> order("conflict"));

        assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.FAILED_RETRYABLE);
        assertThat(OutcomePolicy.standard().classify(409)).isEqualTo(Decision.FAILED_FINAL);
    }

    @Test
    void duplicateOfARunningRequestIsToldToRetryLater() throws Exception {
        try (ExecutorService threads = Executors.newSingleThreadExecutor()) {
            Running first = startHeld(threads, engine);

            assertThatThrownBy(() -> engine.execute(scope, request("a"), TEXT, attempt -> order("duplicate")))
                    .isInstanceOfSatisfying(RequestInProgressException.class, e -> {
                        assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(1));
                        assertThat(e.problemType()).isEqualTo("request-in-progress");
                        assertThat(e.getStackTrace()).isEmpty();
                    });

            assertThat(first.finish().value()).isEqualTo("created");
            assertThat(executions).hasValue(1);
        }
    }

    @Test
    void duplicateWaitsForARunningRequestAndReplaysIt() throws Exception {
        IdempotencyEngine patient = IdempotencyEngine.builder(store).waitTimeout(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(5)).build();
        try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
            Running first = startHeld(threads, patient);
            Future<IdempotentResult<String>> duplicate = threads.submit(() -> patient.execute(scope, request("a"),
                    TEXT, attempt -> order("duplicate")));

            IdempotentResult<String> original = first.finish();

            assertThat(duplicate.get(10, TimeUnit.SECONDS)).isEqualTo(new IdempotentResult<>("created", true));
            assertThat(original).isEqualTo(new IdempotentResult<>("created", false));
            assertThat(executions).hasValue(1);
        }
    }

    @Test
    void duplicatesInThisProcessWaitWithoutTouchingTheStore() throws Exception {
        AtomicInteger claims = new AtomicInteger();
        IdempotencyEngine patient = IdempotencyEngine.builder(new CountingStore(store, claims))
                .waitTimeout(Duration.ofSeconds(30)).build();
        int duplicates = 8;
        try (ExecutorService threads = Executors.newFixedThreadPool(duplicates + 1)) {
            Running first = startHeld(threads, patient);
            List<Future<IdempotentResult<String>>> waiting = new ArrayList<>();
            for (int i = 0; i < duplicates; i++) {
                waiting.add(threads.submit(() -> patient.execute(scope, request("a"), TEXT, attempt -> order("dup"))));
            }

            assertThat(waiting).noneMatch(Future::isDone);
            assertThat(claims).hasValue(1);
            assertThat(first.finish().replayed()).isFalse();

            for (Future<IdempotentResult<String>> duplicate : waiting) {
                assertThat(duplicate.get(10, TimeUnit.SECONDS)).isEqualTo(new IdempotentResult<>("created", true));
            }
            assertThat(executions).hasValue(1);
        }
    }

    @Test
    void hotReplaysAreServedFromMemoryWithoutTheStore() {
        AtomicInteger claims = new AtomicInteger();
        IdempotencyEngine cached = IdempotencyEngine.builder(new CountingStore(store, claims)).build();
        cached.execute(scope, request("a"), TEXT, attempt -> order("created"));

        IdempotentResult<String> replay = cached.execute(scope, request("a"), TEXT, attempt -> order("again"));
        IdempotentResult<String> another = cached.execute(scope, request("a"), TEXT, attempt -> order("again"));
        IdempotentResult<String> third = cached.execute(scope, request("a"), TEXT, attempt -> order("again"));

        assertThat(replay).isEqualTo(new IdempotentResult<>("created", true));
        assertThat(another).isEqualTo(replay);
        assertThat(third).isEqualTo(replay);
        // The first replay read the store; the memory answered the others.
        assertThat(claims).hasValue(2);
        assertThatThrownBy(() -> cached.execute(scope, request("b"), TEXT, attempt -> order("other")))
                .isInstanceOf(IdempotencyKeyReusedException.class);
        assertThat(claims).hasValue(2);
        assertThat(executions).hasValue(1);
    }

    @Test
    void aFreshOutcomeIsKeptInMemoryOnlyOnceReplayed() {
        IdempotencyEngine cached = IdempotencyEngine.builder(store).replayCache(Duration.ofMinutes(1), 1 << 20).build();
        cached.execute(scope, request("a"), TEXT, attempt -> order("created"));

        assertThat(cached.replayFromMemory(scope, request("a"), TEXT)).isEmpty();
        cached.execute(scope, request("a"), TEXT, attempt -> order("again"));
        assertThat(cached.replayFromMemory(scope, request("a"), TEXT))
                .contains(new IdempotentResult<>("created", true));
    }

    @Test
    void duplicatesWaitingForAnAttemptHereReplayItsOutcomeWithoutAskingTheStore() throws Exception {
        AtomicInteger claims = new AtomicInteger();
        IdempotencyEngine cached = IdempotencyEngine.builder(new CountingStore(store, claims))
                .waitTimeout(Duration.ofSeconds(30)).build();
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        int duplicates = 8;
        List<Thread> started = new CopyOnWriteArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(duplicates + 1, task -> {
            Thread thread = new Thread(task);
            started.add(thread);
            return thread;
        });
        try {
            Future<IdempotentResult<String>> first = threads.submit(() -> cached.execute(scope, request("a"), TEXT,
                    attempt -> {
                        running.countDown();
                        release.await();
                        return order("created");
                    }));
            running.await();
            List<Future<IdempotentResult<String>>> waiting = new ArrayList<>();
            for (int i = 0; i < duplicates; i++) {
                waiting.add(threads.submit(() -> cached.execute(scope, request("a"), TEXT,
                        attempt -> order("again"))));
            }
            // The duplicates wait for the attempt with a time limit; the attempt itself waits without one.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (started.size() < duplicates + 1 || started.stream()
                    .filter(thread -> thread.getState() == Thread.State.TIMED_WAITING).count() < duplicates) {
                assertThat(System.nanoTime()).isLessThan(deadline);
                Thread.sleep(5);
            }
            release.countDown();

            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(new IdempotentResult<>("created", false));
            for (Future<IdempotentResult<String>> duplicate : waiting) {
                assertThat(duplicate.get(10, TimeUnit.SECONDS)).isEqualTo(new IdempotentResult<>("created", true));
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(claims).hasValue(1);
        assertThat(executions).hasValue(1);
    }

    @Test
    void operationsOfAnEngineShareItsReplayMemory() {
        AtomicInteger claims = new AtomicInteger();
        IdempotencyEngine base = IdempotencyEngine.builder(new CountingStore(store, claims)).build();
        IdempotencyEngine variant = base.forOperation(OperationPolicy.ENGINE_DEFAULTS
                .withWaitTimeout(Duration.ofSeconds(1)));
        base.execute(scope, request("a"), TEXT, attempt -> order("created"));
        base.execute(scope, request("a"), TEXT, attempt -> order("again"));

        IdempotentResult<String> replay = variant.execute(scope, request("a"), TEXT, attempt -> order("again"));

        assertThat(replay).isEqualTo(new IdempotentResult<>("created", true));
        assertThat(claims).hasValue(2);
    }

    @Test
    void attemptRunningHereIsTheRunningAttemptAndCompletesWhenItEnds() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        assertThat(engine.attemptRunningHere(scope)).isEmpty();
        ExecutorService first = Executors.newSingleThreadExecutor();
        try {
            Future<IdempotentResult<String>> result = first.submit(() -> engine.execute(scope, request("a"), TEXT,
                    attempt -> {
                        running.countDown();
                        release.await();
                        return order("created");
                    }));
            running.await();
            CompletableFuture<Void> ended = engine.attemptRunningHere(scope).orElseThrow()
                    .toCompletableFuture();
            // Cancelling a waiter's copy leaves the attempt alone.
            ended.cancel(false);
            CompletableFuture<Void> waiter = engine.attemptRunningHere(scope).orElseThrow()
                    .toCompletableFuture();
            assertThat(waiter).isNotDone();

            release.countDown();

            waiter.get(10, TimeUnit.SECONDS);
            assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo(new IdempotentResult<>("created", false));
            assertThat(engine.attemptRunningHere(scope)).isEmpty();
        } finally {
            first.shutdownNow();
        }
    }

    @Test
    void replayFromMemoryAnswersOnlyWhatThisProcessRemembersAndNeverAsksTheStore() {
        AtomicInteger finds = new AtomicInteger();
        IdempotencyEngine remembering = IdempotencyEngine.builder(new ForwardingIdempotencyStore(store) {
            @Override
            public Optional<IdempotencyRecord> find(IdempotencyScope at) {
                finds.incrementAndGet();
                return super.find(at);
            }
        }).replayCache(Duration.ofMinutes(1), 1 << 20).build();
        IdempotencyEngine forgetful = IdempotencyEngine.builder(store).replayCache(Duration.ZERO, 1).build();
        assertThat(remembering.replayFromMemory(scope, request("a"), TEXT)).isEmpty();
        remembering.execute(scope, request("a"), TEXT, attempt -> order("created"));
        remembering.execute(scope, request("a"), TEXT, attempt -> order("again"));

        assertThat(remembering.replayFromMemory(scope, request("a"), TEXT))
                .contains(new IdempotentResult<>("created", true));
        assertThatThrownBy(() -> remembering.replayFromMemory(scope, request("b"), TEXT))
                .isInstanceOf(IdempotencyKeyReusedException.class);
        // Stored, but not remembered by this engine: the caller must go to execute.
        assertThat(forgetful.replayFromMemory(scope, request("a"), TEXT)).isEmpty();
        assertThat(finds).hasValue(0);
    }

    @Test
    void rememberedOutcomeNeverOutlivesItsRecord() {
        AdjustableClock clock = new AdjustableClock(START);
        // Expiry: lease end (1 s) plus retention (1 min) after the claim.
        IdempotencyEngine cached = IdempotencyEngine.builder(store).clock(clock).leaseDuration(Duration.ofSeconds(1))
                .retention(new Retention(Duration.ofMinutes(1), Duration.ofMinutes(1)))
                .replayCache(Duration.ofMinutes(10), 1 << 20).build();
        cached.execute(scope, request("a"), TEXT, attempt -> order("first"));
        clock.advance(Duration.ofSeconds(59));
        assertThat(cached.execute(scope, request("a"), TEXT, attempt -> order("second")).replayed()).isTrue();

        clock.advance(Duration.ofSeconds(3));
        IdempotentResult<String> afterExpiry = cached.execute(scope, request("b"), TEXT, attempt -> order("second"));

        assertThat(afterExpiry).isEqualTo(new IdempotentResult<>("second", false));
        assertThat(executions).hasValue(2);
    }

    @Test
    void expiredLeaseIsTakenOverAndTheStaleAttemptCannotOverwriteTheNewOutcome() {
        IdempotencyEngine later = engineAt(LEASE.plusSeconds(1));

        IdempotentResult<String> stale = engine.execute(scope, request("a"), TEXT, attempt -> {
            // While this attempt stalls past its lease, a retry takes the record over and finishes.
            IdempotentResult<String> takeover = later.execute(scope, request("a"), TEXT, retry -> order("new"));
            assertThat(takeover).isEqualTo(new IdempotentResult<>("new", false));
            return order("stale");
        });

        // Its outcome is refused by the fencing token, and its caller gets the outcome its successor stored.
        assertThat(stale).isEqualTo(new IdempotentResult<>("new", true));
        IdempotencyRecord record = store.find(scope).orElseThrow();
        assertThat(record.attempt()).isEqualTo(2);
        assertThat(record.response()).isEqualTo(TEXT.encode("new"));
        assertThat(later.execute(scope, request("a"), TEXT, attempt -> order("again")))
                .isEqualTo(new IdempotentResult<>("new", true));
    }

    @Test
    void unreachableStoreFailsClosedWithoutRunningTheWork() {
        IdempotencyEngine broken = IdempotencyEngine.builder(new UnreachableStore()).build();

        assertThatThrownBy(() -> broken.execute(scope, request("a"), TEXT, attempt -> order("created")))
                .isInstanceOfSatisfying(IdempotencyStoreException.class,
                        e -> assertThat(e.problemType()).isEqualTo("idempotency-store-unavailable"));
        assertThat(executions).hasValue(0);
    }

    @Test
    void inMemoryStoreRefusesTransactionalModeBeforeRunningTheWork() {
        IdempotencyEngine transactional = IdempotencyEngine.builder(store).transactions(new TransactionRunner() {
            @Override
            public <T> T inTransaction(Supplier<T> work) {
                return work.get();
            }
        }).build();

        assertThatThrownBy(() -> transactional.execute(scope, request("a"), TEXT, attempt -> order("created")))
                .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("in-memory");
        assertThat(executions).hasValue(0);
    }

    // issue 8: the caller got a 503 store error ("nothing ran") although the work went on asynchronously.
    @Test
    void outcomeUnknownIsRethrownWhenItsTransactionCannotCommit() {
        IdempotencyEngine transactional = IdempotencyEngine.builder(new JoiningStore(store))
                .transactions(new TransactionRunner() {
                    @Override
                    public <T> T inTransaction(Supplier<T> work) {
                        work.get();
                        throw new IdempotencyStoreException("commit refused", new IOException("commit refused"));
                    }
                }).build();
        OutcomeUnknownException unknown = OutcomeUnknownException.storing("went async",
                StoredResponse.of(500, new byte[0]));

        assertThatThrownBy(() -> transactional.execute(scope, request("a"), TEXT, attempt -> {
            order("started");
            throw unknown;
        })).isSameAs(unknown);
        assertThat(executions).hasValue(1);
    }

    /** The starter's property defaults come from the same constants (OnceOnlyAutoConfigurationTest). */
    @Test
    void builderDefaultsAreCoresDefaults() {
        IdempotencyEngineBuilder defaults = IdempotencyEngine.builder(store);

        assertThat(defaults.leaseDuration).isEqualTo(Duration.parse(IdempotencyDefaults.LEASE_DURATION));
        assertThat(defaults.waitTimeout).isEqualTo(Duration.parse(IdempotencyDefaults.WAIT_TIMEOUT));
        assertThat(defaults.retryAfter).isEqualTo(Duration.parse(IdempotencyDefaults.RETRY_AFTER));
        assertThat(defaults.retention).isEqualTo(Retention.DEFAULT);
        assertThat(defaults.replayCacheTimeToLive)
                .isEqualTo(Duration.parse(IdempotencyDefaults.REPLAY_CACHE_TIME_TO_LIVE));
        assertThat(defaults.replayCacheMaxBytes).isEqualTo(IdempotencyDefaults.REPLAY_CACHE_MAX_BYTES);
    }

    @Test
    void invalidSettingsFailAtConfigurationNamingTheSetting() {
        var builder = IdempotencyEngine.builder(store);

        assertThatThrownBy(() -> builder.waitTimeout(Duration.ofSeconds(-1)))
                .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("waitTimeout");
        assertThatThrownBy(() -> builder.leaseDuration(Duration.ZERO))
                .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("leaseDuration");
        assertThatThrownBy(() -> new Retention(Duration.ofHours(1), Duration.ZERO))
                .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("retention.failed");
        assertThatThrownBy(() -> new Retention(Duration.ofDays(365_000), Duration.ofHours(1)))
                .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("retention.succeeded");
        assertThatThrownBy(() -> builder.leaseDuration(Duration.ofDays(30)))
                .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("leaseDuration");
        assertThatThrownBy(() -> builder.waitTimeout(Duration.ofHours(2)))
                .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("waitTimeout");
    }

    /** An execution that has claimed its scope and is held inside its work until finished. */
    private record Running(Future<IdempotentResult<String>> result, CountDownLatch release) {

        IdempotentResult<String> finish() throws Exception {
            release.countDown();
            return result.get(10, TimeUnit.SECONDS);
        }
    }

    private Running startHeld(ExecutorService threads, IdempotencyEngine on) throws InterruptedException {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Future<IdempotentResult<String>> result = threads.submit(() -> on.execute(scope, request("a"), TEXT, attempt -> {
            running.countDown();
            release.await();
            return order("created");
        }));
        assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
        return new Running(result, release);
    }

    private String order(String result) {
        executions.incrementAndGet();
        return result;
    }


    /** Counts claims. */
    private static final class CountingStore extends ForwardingIdempotencyStore {

        private final AtomicInteger claims;

        CountingStore(IdempotencyStore delegate, AtomicInteger claims) {
            super(delegate);
            this.claims = claims;
        }

        @Override
        public ClaimResult claim(ClaimRequest request, Instant now) {
            claims.incrementAndGet();
            return super.claim(request, now);
        }
    }

    /**
     * The in-memory store as if it joined the runner's transaction: it takes transactional claims (committing
     * them at once), so that the engine's transactional path runs without a database.
     */
    private static final class JoiningStore extends ForwardingIdempotencyStore {

        JoiningStore(IdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        public ClaimResult claim(ClaimRequest request, Instant now) {
            return super.claim(new ClaimRequest(request.scope(), request.fingerprint(), request.leaseExpiresAt(),
                    request.expiresAt(), request.lockWait(), false), now);
        }
    }

    private static final class UnreachableStore implements IdempotencyStore {

        private static IdempotencyStoreException down() {
            return new IdempotencyStoreException("connection refused", new IOException("connection refused"));
        }

        @Override
        public ClaimResult claim(ClaimRequest request, Instant now) {
            throw down();
        }

        @Override
        public Optional<IdempotencyRecord> find(IdempotencyScope scope) {
            throw down();
        }

        @Override
        public boolean complete(IdempotencyScope scope, LeaseToken token, Completion completion, Instant now) {
            throw down();
        }

        @Override
        public boolean renew(IdempotencyScope scope, LeaseToken token, Instant leaseExpiresAt, Instant now) {
            throw down();
        }

        @Override
        public boolean release(IdempotencyScope scope, LeaseToken token, Release release, Instant now) {
            throw down();
        }

        @Override
        public int purgeExpired(Instant now, int limit) {
            throw down();
        }
    }
}
