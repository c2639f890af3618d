package dev.onceonly.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyEngineBuilder;
import dev.onceonly.IdempotencyException;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyKeyReusedException;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotentResult;
import dev.onceonly.OutcomeCodec;
import dev.onceonly.OutcomeUnknownException;
import dev.onceonly.RequestInProgressException;
import dev.onceonly.StoredResponse;
import dev.onceonly.TransactionRollbackException;
import dev.onceonly.TransactionRunner;
import dev.onceonly.inbox.Delivery;
import dev.onceonly.inbox.Inbox;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.Completion;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.InsertionRefusedException;
import dev.onceonly.spi.RecordState;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The engine's transactional and joined modes on a real database, for every store that joins the caller's
 * transaction: claim, business write and stored outcome commit or roll back together (joined: with the caller's
 * transaction, and the inbox on top of it); a duplicate waits at most its bound for
 * the uncommitted claim; the claim's bound does not leak into the business statements; a runner the store cannot
 * join, or a transaction already active, fails before the work runs.
 *
 * <p>Extend it once per database and implement the hooks: the store, the {@link TransactionRunner} whose
 * transactions it joins, and a business table of orders in the same database. The runner must begin a
 * transaction of its own and refuse to run inside one that is already active. A broken wait bound would block a
 * test forever; the timeout turns that into a failure.
 */
@Timeout(120)
public abstract class TransactionalModeContract {

    private static final int CONCURRENT = 20;

    private final String owner = "tx-" + UUID.randomUUID();
    private IdempotencyStore store;

    /** The store under test; it must join the transactions of {@link #transactions()}. */
    protected abstract IdempotencyStore store();

    /** Begins a transaction of its own per call, and refuses to run inside an active one. */
    protected abstract TransactionRunner transactions();

    /**
     * Inserts an order of {@code owner} in the current transaction, as the business code would.
     *
     * @return its generated id
     */
    protected abstract long insertOrder(String owner, long sku);

    /** Updates the order {@code id} in the current transaction, taking its row lock until that ends. */
    protected abstract void touchOrder(long id);

    /** Counts the committed orders of {@code owner}. */
    protected abstract int committedOrders(String owner);

    /** The id of the session (connection) of the current transaction; called inside the work. */
    protected abstract long sessionId();

    /**
     * Counts the transactions that wait for a lock held by the session {@code session} (a {@link #sessionId()}):
     * only those, so that other tests' lock waits on the same database never count.
     */
    protected abstract int lockWaitersBlockedBy(long session);

    @BeforeEach
    void createStoreUnderTest() {
        store = store();
    }

    /**
     * What the engines under test get besides the store and the runner, such as a shared outcome cache in front
     * of the store: the contract must hold with it.
     */
    protected IdempotencyEngineBuilder configure(IdempotencyEngineBuilder builder) {
        return builder;
    }

    private IdempotencyEngine engine(Duration waitTimeout) {
        return configure(IdempotencyEngine.builder(store)
                .transactions(transactions())
                .waitTimeout(waitTimeout)
                .pollInterval(Duration.ofMillis(20)))
                .build();
    }

    @Test
    void concurrentExecutionsWithOneKeyCreateExactlyOneBusinessRow() throws Exception {
        for (int round = 0; round < 5; round++) {
            IdempotencyScope scope = newScope();
            CountDownLatch start = new CountDownLatch(1);
            List<Future<IdempotentResult<Long>>> futures = new ArrayList<>();
            try (ExecutorService threads = Executors.newFixedThreadPool(CONCURRENT)) {
                for (int i = 0; i < CONCURRENT; i++) {
                    // An engine each, as in separate service instances: only the database keeps them apart.
                    IdempotencyEngine engine = engine(Duration.ofSeconds(10));
                    futures.add(threads.submit(() -> {
                        start.await();
                        return engine.execute(scope, order(7), ORDER_ID, attempt -> insertOrder(7));
                    }));
                }
                start.countDown();
                List<IdempotentResult<Long>> results = new ArrayList<>();
                for (Future<IdempotentResult<Long>> future : futures) {
                    results.add(future.get(30, TimeUnit.SECONDS));
                }

                assertThat(committedOrders(owner)).isEqualTo(round + 1);
                assertThat(results).filteredOn(result -> !result.replayed()).hasSize(1);
                Long orderId = results.stream().filter(result -> !result.replayed()).findFirst().orElseThrow()
                        .value();
                assertThat(results).allSatisfy(result -> assertThat(result.value()).isEqualTo(orderId));
            }
        }
    }

    @Test
    void businessFailureRollsBackTheClaimAndTheSameKeyThenSucceeds() {
        IdempotencyEngine engine = engine(Duration.ZERO);
        IdempotencyScope scope = newScope();

        assertThatThrownBy(() -> engine.execute(scope, order(1), ORDER_ID, attempt -> {
            insertOrder(1);
            throw new IllegalStateException("payment declined by a flaky dependency");
        })).isInstanceOf(IllegalStateException.class);

        assertThat(committedOrders(owner)).isZero();
        assertThat(store.find(scope)).isEmpty();

        IdempotentResult<Long> retry = engine.execute(scope, order(1), ORDER_ID, attempt -> insertOrder(1));

        assertThat(retry.replayed()).isFalse();
        assertThat(committedOrders(owner)).isEqualTo(1);
        assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.SUCCEEDED);
    }

    @Test
    void retryableOutcomeRollsBackTheBusinessWriteAndIsNotStored() {
        IdempotencyEngine engine = engine(Duration.ZERO);
        IdempotencyScope scope = newScope();
        OutcomeCodec<Long> unavailable = codec(503);

        IdempotentResult<Long> first = engine.execute(scope, order(1), unavailable, attempt -> insertOrder(1));

        assertThat(first.replayed()).isFalse();
        assertThat(committedOrders(owner)).isZero();
        assertThat(store.find(scope)).isEmpty();
        assertThat(engine.execute(scope, order(1), ORDER_ID, attempt -> insertOrder(1)).replayed()).isFalse();
        assertThat(committedOrders(owner)).isEqualTo(1);
    }

    @Test
    void workWhoseOutcomeIsUnknownCommitsWithItsStoredOutcomeAndNeverRunsAgain() {
        IdempotencyEngine engine = engine(Duration.ZERO);
        IdempotencyScope scope = newScope();
        // The codec reads bodies as order ids; 0 is none.
        StoredResponse unknown = StoredResponse.of(500, "0".getBytes(StandardCharsets.UTF_8));

        assertThatThrownBy(() -> engine.execute(scope, order(1), ORDER_ID, attempt -> {
            insertOrder(1);
            throw OutcomeUnknownException.storing("the work went on asynchronously", unknown);
        })).isInstanceOf(OutcomeUnknownException.class);
        IdempotentResult<Long> retry = engine.execute(scope, order(1), ORDER_ID, attempt -> insertOrder(1));

        assertThat(retry).isEqualTo(new IdempotentResult<>(0L, true));
        assertThat(committedOrders(owner)).isEqualTo(1);
        assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.FAILED_FINAL);
    }

    @Test
    void workWithoutAStorableResultUnlessRolledBackRollsBackAndLeavesTheKeyToARetry() {
        IdempotencyEngine engine = engine(Duration.ZERO);
        IdempotencyScope scope = newScope();
        TooLarge tooLarge = new TooLarge();

        // An HTTP response larger than may be kept: the transaction undoes the work, so nothing took effect.
        assertThatThrownBy(() -> engine.execute(scope, order(1), ORDER_ID, attempt -> {
            insertOrder(1);
            throw OutcomeUnknownException.unlessRolledBack(tooLarge, "too large", StoredResponse.of(500, new byte[0]));
        })).isSameAs(tooLarge);
        assertThat(committedOrders(owner)).isZero();
        assertThat(store.find(scope)).isEmpty();

        assertThat(engine.execute(scope, order(1), ORDER_ID, attempt -> insertOrder(1)).replayed()).isFalse();
        assertThat(committedOrders(owner)).isEqualTo(1);
    }

    @Test
    void joinedWorkWithoutAStorableResultUnlessRolledBackRollsTheCallerBackAndStoresNothing() {
        IdempotencyEngine engine = joined(Duration.ZERO);
        IdempotencyScope scope = newScope();
        TooLarge tooLarge = new TooLarge();

        assertThatThrownBy(() -> transactions().inTransaction(() -> engine.execute(scope, order(1), ORDER_ID,
                attempt -> {
                    insertOrder(1);
                    throw OutcomeUnknownException.unlessRolledBack(tooLarge, "too large",
                            StoredResponse.of(500, new byte[0]));
                }))).isSameAs(tooLarge);

        assertThat(committedOrders(owner)).isZero();
        assertThat(store.find(scope)).isEmpty();
    }

    /** What a transport throws for a result it cannot keep. */
    private static final class TooLarge extends IdempotencyException {

        TooLarge() {
            super("the result is larger than may be kept", false);
        }

        @Override
        public String problemType() {
            return "result-too-large";
        }
    }

    @Test
    void committedOutcomeIsReplayedAndAnotherRequestIsRefused() {
        IdempotencyEngine engine = engine(Duration.ZERO);
        IdempotencyScope scope = newScope();
        IdempotentResult<Long> first = engine.execute(scope, order(1), ORDER_ID, attempt -> insertOrder(1));

        IdempotentResult<Long> replay = engine.execute(scope, order(1), ORDER_ID, attempt -> insertOrder(1));

        assertThat(replay).isEqualTo(new IdempotentResult<>(first.value(), true));
        assertThat(committedOrders(owner)).isEqualTo(1);
        assertThatThrownBy(() -> engine.execute(scope, order(2), ORDER_ID, attempt -> insertOrder(2)))
                .isInstanceOf(IdempotencyKeyReusedException.class);
        assertThat(committedOrders(owner)).isEqualTo(1);
    }

    @Test
    void sameKeyOfTwoOwnersMakesTwoOrders() {
        IdempotencyEngine engine = engine(Duration.ZERO);
        IdempotencyScope alice = newScope();
        IdempotencyScope bob = new IdempotencyScope(owner + "-bob", alice.operation(), alice.key());

        IdempotentResult<Long> forAlice = engine.execute(alice, order(1), ORDER_ID, attempt -> insertOrder(1));
        IdempotentResult<Long> forBob = engine.execute(bob, order(1), ORDER_ID, attempt -> insertOrder(1));

        assertThat(forAlice.replayed()).isFalse();
        assertThat(forBob.replayed()).isFalse();
        assertThat(forBob.value()).isNotEqualTo(forAlice.value());
        assertThat(committedOrders(owner)).isEqualTo(2);
    }

    @Test
    void concurrentDuplicateWaitsAtMostTheBoundThenIsToldInProgress() throws Exception {
        IdempotencyScope scope = newScope();
        try (ExecutorService threads = Executors.newSingleThreadExecutor()) {
            HeldAttempt first = holdOpen(threads, scope);

            IdempotencyEngine impatient = engine(Duration.ofMillis(300));
            assertThatThrownBy(() -> impatient.execute(scope, order(1), ORDER_ID, attempt -> insertOrder(1)))
                    .isInstanceOfSatisfying(RequestInProgressException.class,
                            e -> assertThat(e.retryAfter()).isPositive());
            // The duplicate gave up while the first attempt was still holding its transaction open.
            assertThat(first.result()).isNotDone();

            long orderId = first.release();
            IdempotentResult<Long> later = impatient.execute(scope, order(1), ORDER_ID, attempt -> insertOrder(1));
            assertThat(later).isEqualTo(new IdempotentResult<>(orderId, true));
            assertThat(committedOrders(owner)).isEqualTo(1);
        }
    }

    @Test
    void duplicateWithinTheBoundWaitsForTheCommitAndReplays() throws Exception {
        IdempotencyScope scope = newScope();
        try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
            HeldAttempt first = holdOpen(threads, scope);
            Future<IdempotentResult<Long>> duplicate = threads.submit(() -> engine(Duration.ofSeconds(20))
                    .execute(scope, order(1), ORDER_ID, attempt -> insertOrder(1)));

            long orderId = first.release();
            assertThat(duplicate.get(30, TimeUnit.SECONDS)).isEqualTo(new IdempotentResult<>(orderId, true));
            assertThat(committedOrders(owner)).isEqualTo(1);
        }
    }

    @Test
    void businessLockWaitsAreNotHeldToTheClaimsBound() throws Exception {
        IdempotencyEngine engine = engine(Duration.ZERO);
        long shared = engine.execute(newScope(), order(1), ORDER_ID, attempt -> insertOrder(1)).value();
        CountDownLatch locked = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        AtomicLong holder = new AtomicLong();
        try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
            Future<IdempotentResult<Long>> first = threads.submit(() -> engine.execute(newScope(), order(1), ORDER_ID,
                    attempt -> {
                        touchOrder(shared);
                        holder.set(sessionId());
                        locked.countDown();
                        finish.await();
                        return 1L;
                    }));
            assertThat(locked.await(10, TimeUnit.SECONDS)).isTrue();
            // Another key's work waits for the same row; with the claim's 1 ms bound still in force it would fail.
            Future<IdempotentResult<Long>> second = threads.submit(() -> engine.execute(newScope(), order(2), ORDER_ID,
                    attempt -> {
                        touchOrder(shared);
                        return 2L;
                    }));
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> second.isDone() || lockWaitersBlockedBy(holder.get()) > 0);

            finish.countDown();

            assertThat(first.get(30, TimeUnit.SECONDS).value()).isEqualTo(1L);
            assertThat(second.get(30, TimeUnit.SECONDS).value()).isEqualTo(2L);
        }
    }

    @Test
    void transactionalModeWithARunnerTheStoreCannotJoinFailsBeforeRunningTheWork() {
        TransactionRunner noTransaction = new TransactionRunner() {
            @Override
            public <T> T inTransaction(Supplier<T> work) {
                return work.get();
            }
        };
        IdempotencyEngine engine = IdempotencyEngine.builder(store).transactions(noTransaction).build();
        IdempotencyScope scope = newScope();

        assertThatThrownBy(() -> engine.execute(scope, order(1), ORDER_ID, attempt -> insertOrder(1)))
                .isInstanceOf(IdempotencyConfigurationException.class)
                .hasMessageContaining("transactional mode");

        assertThat(committedOrders(owner)).isZero();
        assertThat(store.find(scope)).isEmpty();
    }

    @Test
    void leasedModeInsideACallersTransactionFailsBeforeRunningTheWork() {
        IdempotencyEngine leased = IdempotencyEngine.builder(store).build();

        assertThatThrownBy(() -> transactions().inTransaction(() ->
                leased.execute(newScope(), order(1), ORDER_ID, attempt -> insertOrder(1))))
                .isInstanceOf(IdempotencyConfigurationException.class)
                .hasMessageContaining("leased mode");
        assertThat(committedOrders(owner)).isZero();
    }

    @Test
    void transactionalModeInsideACallersTransactionFailsBeforeRunningTheWork() {
        IdempotencyEngine engine = engine(Duration.ZERO);

        assertThatThrownBy(() -> transactions().inTransaction(() ->
                engine.execute(newScope(), order(1), ORDER_ID, attempt -> insertOrder(1))))
                .isInstanceOf(IdempotencyConfigurationException.class);
        assertThat(committedOrders(owner)).isZero();
    }

    private IdempotencyEngine joined(Duration waitTimeout) {
        return engine(waitTimeout).toBuilder().mode(IdempotencyMode.JOINED).build();
    }

    @Test
    void joinedClaimCommitsWithTheCallersTransactionAndADuplicateDeliveryCommitsNothingNew() {
        IdempotencyEngine engine = joined(Duration.ZERO);
        IdempotencyScope scope = newScope();

        IdempotentResult<Long> first = transactions().inTransaction(() ->
                engine.execute(scope, order(1), ORDER_ID, attempt -> insertOrder(1)));
        IdempotentResult<Long> again = transactions().inTransaction(() ->
                engine.execute(scope, order(1), ORDER_ID, attempt -> insertOrder(1)));

        assertThat(first.replayed()).isFalse();
        assertThat(again).isEqualTo(new IdempotentResult<>(first.value(), true));
        assertThat(committedOrders(owner)).isEqualTo(1);
        assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.SUCCEEDED);
    }

    @Test
    void joinedOutcomeRolledBackByTheCallerIsNeverReplayedNotEvenFromMemory() {
        // The engine keeps outcomes in memory by default: one remembered before the commit would be replayed.
        IdempotencyEngine engine = joined(Duration.ZERO);
        IdempotencyScope scope = newScope();

        assertThatThrownBy(() -> transactions().inTransaction(() -> {
            engine.execute(scope, order(1), ORDER_ID, attempt -> insertOrder(1));
            throw new IllegalStateException("the caller fails after the engine returned");
        })).isInstanceOf(IllegalStateException.class);
        IdempotentResult<Long> redelivered = transactions().inTransaction(() ->
                engine.execute(scope, order(1), ORDER_ID, attempt -> insertOrder(1)));

        assertThat(redelivered.replayed()).isFalse();
        assertThat(committedOrders(owner)).isEqualTo(1);
    }

    @Test
    void aDuplicateInTheSameCallersTransactionThatRollsBackIsNeverReplayedLaterNotEvenByAnotherEngine() {
        // A batch that holds one message twice: the second delivery meets the first's uncommitted record.
        IdempotencyScope scope = newScope();
        IdempotencyEngine engine = joined(Duration.ZERO);

        assertThatThrownBy(() -> transactions().inTransaction(() -> {
            engine.execute(scope, order(1), ORDER_ID, attempt -> insertOrder(1));
            assertThat(engine.execute(scope, order(1), ORDER_ID, attempt -> insertOrder(1)).replayed()).isTrue();
            throw new IllegalStateException("the batch fails after both deliveries");
        })).isInstanceOf(IllegalStateException.class);
        // The same engine (its memory) and another one (the shared cache, where there is one).
        IdempotentResult<Long> redelivered = transactions().inTransaction(() ->
                engine.execute(scope, order(1), ORDER_ID, attempt -> insertOrder(1)));

        assertThat(redelivered.replayed()).isFalse();
        assertThat(committedOrders(owner)).isEqualTo(1);
        IdempotencyScope another = newScope();
        assertThatThrownBy(() -> transactions().inTransaction(() -> {
            engine.execute(another, order(2), ORDER_ID, attempt -> insertOrder(2));
            engine.execute(another, order(2), ORDER_ID, attempt -> insertOrder(2));
            throw new IllegalStateException("the batch fails again");
        })).isInstanceOf(IllegalStateException.class);
        assertThat(transactions().inTransaction(() -> joined(Duration.ZERO).execute(another, order(2), ORDER_ID,
                attempt -> insertOrder(2))).replayed()).isFalse();
    }

    @Test
    void joinedDuplicateOfAnUncommittedFirstDeliveryIsToldInProgressNotSkipped() throws Exception {
        IdempotencyScope scope = newScope();
        try (ExecutorService threads = Executors.newFixedThreadPool(1)) {
            CountDownLatch claimed = new CountDownLatch(1);
            CountDownLatch finish = new CountDownLatch(1);
            Future<IdempotentResult<Long>> first = threads.submit(() -> transactions().inTransaction(() ->
                    joined(Duration.ZERO).execute(scope, order(1), ORDER_ID, attempt -> {
                        long id = insertOrder(1);
                        claimed.countDown();
                        awaitOrFail(finish);
                        return id;
                    })));
            assertThat(claimed.await(10, TimeUnit.SECONDS)).isTrue();

            IdempotencyEngine impatient = joined(Duration.ofMillis(200));
            assertThatThrownBy(() -> transactions().inTransaction(() ->
                    impatient.execute(scope, order(1), ORDER_ID, attempt -> insertOrder(1))))
                    .isInstanceOf(RequestInProgressException.class);
            finish.countDown();
            long orderId = first.get(10, TimeUnit.SECONDS).value();

            IdempotentResult<Long> redelivered = transactions().inTransaction(() ->
                    impatient.execute(scope, order(1), ORDER_ID, attempt -> insertOrder(1)));
            assertThat(redelivered).isEqualTo(new IdempotentResult<>(orderId, true));
            assertThat(committedOrders(owner)).isEqualTo(1);
        }
    }

    @Test
    void concurrentJoinedDeliveriesOfOneKeyCreateExactlyOneBusinessRow() throws Exception {
        IdempotencyScope scope = newScope();
        CountDownLatch start = new CountDownLatch(1);
        List<Future<IdempotentResult<Long>>> futures = new ArrayList<>();
        try (ExecutorService threads = Executors.newFixedThreadPool(CONCURRENT)) {
            for (int i = 0; i < CONCURRENT; i++) {
                IdempotencyEngine engine = joined(Duration.ofSeconds(10));
                futures.add(threads.submit(() -> {
                    start.await();
                    return transactions().inTransaction(() ->
                            engine.execute(scope, order(3), ORDER_ID, attempt -> insertOrder(3)));
                }));
            }
            start.countDown();
            List<IdempotentResult<Long>> results = new ArrayList<>();
            for (Future<IdempotentResult<Long>> future : futures) {
                results.add(future.get(30, TimeUnit.SECONDS));
            }

            assertThat(committedOrders(owner)).isEqualTo(1);
            assertThat(results).filteredOn(result -> !result.replayed()).hasSize(1);
        }
    }

    @Test
    void joinedModeWithoutACallersTransactionFailsBeforeRunningTheWork() {
        IdempotencyEngine engine = joined(Duration.ZERO);

        assertThatThrownBy(() -> engine.execute(newScope(), order(1), ORDER_ID, attempt -> insertOrder(1)))
                .isInstanceOf(IdempotencyConfigurationException.class)
                .hasMessageContaining("joined mode");
        assertThat(committedOrders(owner)).isZero();
    }

    @Test
    void joinedRetryableOutcomeRollsTheCallersTransactionBackAndTheRetryRuns() {
        IdempotencyEngine engine = joined(Duration.ZERO);
        IdempotencyScope scope = newScope();

        assertThatThrownBy(() -> transactions().inTransaction(() ->
                engine.execute(scope, order(1), codec(503), attempt -> insertOrder(1))))
                .isInstanceOf(TransactionRollbackException.class);
        assertThat(committedOrders(owner)).isZero();
        assertThat(store.find(scope)).isEmpty();

        IdempotentResult<Long> retry = transactions().inTransaction(() ->
                engine.execute(scope, order(1), ORDER_ID, attempt -> insertOrder(1)));
        assertThat(retry.replayed()).isFalse();
        assertThat(committedOrders(owner)).isEqualTo(1);
    }

    @Test
    void joinedWorkThatFailsCannotBeCommittedByACallerThatCatchesTheException() {
        IdempotencyEngine engine = joined(Duration.ZERO);
        IdempotencyScope scope = newScope();

        assertThatThrownBy(() -> transactions().inTransaction(() -> {
            try {
                engine.execute(scope, order(1), ORDER_ID, attempt -> {
                    insertOrder(1);
                    throw new IllegalStateException("the handler failed half-way");
                });
            } catch (IllegalStateException swallowed) {
                // a caller that goes on as if nothing happened
            }
            return null;
        })).isInstanceOf(TransactionRollbackException.class);

        assertThat(committedOrders(owner)).isZero();
        assertThat(store.find(scope)).isEmpty();
    }

    @Test
    void inboxStoresHandledWithoutAnHttpStatusAndGivesDuplicatesTheResult() {
        Inbox inbox = Inbox.of(engine(Duration.ZERO), owner, Duration.ofDays(7));
        String eventId = "order-42:payment.succeeded." + UUID.randomUUID();

        Delivery first = transactions().inTransaction(() -> inbox.receive(eventId, attempt -> {
            insertOrder(42);
            return "noted".getBytes(StandardCharsets.UTF_8);
        }));
        Delivery again = transactions().inTransaction(() -> inbox.receive(eventId, attempt -> {
            insertOrder(42);
            return null;
        }));

        assertThat(first.duplicate()).isFalse();
        assertThat(again.duplicate()).isTrue();
        assertThat(new String(again.result(), StandardCharsets.UTF_8)).isEqualTo("noted");
        assertThat(committedOrders(owner)).isEqualTo(1);
        IdempotencyRecord record = store.find(new IdempotencyScope(owner, Inbox.OPERATION,
                new IdempotencyKey(eventId))).orElseThrow();
        assertThat(Objects.requireNonNull(record.response()).hasStatus()).isFalse();
    }

    @Test
    void aFinishedOutcomeInsertedInOneWriteCommitsWithTheBusinessRowAndIsFoundWhole() {
        IdempotencyScope scope = newScope();
        if (!store.insertsFinished()) {
            assertThatThrownBy(() -> store.insertFinished(finishedClaim(scope, Duration.ZERO), finished(7),
                    Instant.now())).isInstanceOf(UnsupportedOperationException.class);
            return;
        }
        Instant now = Instant.now();

        IdempotencyStore.Insertion insertion = transactions().inTransaction(() -> {
            insertOrder(7);
            return store.insertFinished(finishedClaim(scope, Duration.ofSeconds(1)), finished(7), now);
        });

        assertThat(insertion).isEqualTo(IdempotencyStore.Insertion.INSERTED);
        assertThat(committedOrders(owner)).isEqualTo(1);
        IdempotencyRecord record = store.find(scope).orElseThrow();
        assertThat(record.state()).isEqualTo(RecordState.SUCCEEDED);
        assertThat(record.attempt()).isEqualTo(1);
        assertThat(record.response()).isEqualTo(finished(7).response());
        assertThat(record.fingerprint().matches(order(7))).isTrue();
        assertThat(record.createdAt()).isEqualTo(now.truncatedTo(ChronoUnit.MICROS));
    }

    @Test
    void aFinishedOutcomeIsNeverInsertedOverARecordOfTheScope() {
        IdempotencyScope scope = newScope();
        if (!store.insertsFinished()) {
            return; // the first test of this pair checks that such a store refuses
        }
        long orderId = engine(Duration.ZERO).execute(scope, order(1), ORDER_ID, attempt -> insertOrder(1)).value();

        IdempotencyStore.Insertion insertion = insertFinished(finishedClaim(scope, Duration.ofSeconds(1)),
                finished(99));

        assertThat(insertion).isEqualTo(IdempotencyStore.Insertion.EXISTS);
        assertThat(store.find(scope).orElseThrow().response()).isEqualTo(ORDER_ID.encode(orderId));
    }

    @Test
    void aFinishedOutcomeMeetingAnUncommittedClaimWaitsAtMostTheLockWait() throws Exception {
        IdempotencyScope scope = newScope();
        if (!store.insertsFinished()) {
            return; // the first test of this group checks that such a store refuses
        }
        CountDownLatch claimed = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        try (ExecutorService threads = Executors.newSingleThreadExecutor()) {
            // A claim of the store's own, uncommitted: what an instance without the shared cache holds.
            Future<?> holder = threads.submit(() -> transactions().inTransaction(() -> {
                Instant now = Instant.now();
                assertThat(store.claim(finishedClaim(scope, Duration.ZERO), now))
                        .isInstanceOf(ClaimResult.Claimed.class);
                claimed.countDown();
                awaitOrFail(finish);
                return null;
            }));
            awaitOrFail(claimed);

            IdempotencyStore.Insertion insertion;
            try {
                insertion = insertFinished(finishedClaim(scope, Duration.ofMillis(200)), finished(2));
            } catch (TransactionRollbackException lockedAndRolledBack) {
                insertion = IdempotencyStore.Insertion.LOCKED;
            }
            finish.countDown();
            holder.get(10, TimeUnit.SECONDS);

            assertThat(insertion).isEqualTo(IdempotencyStore.Insertion.LOCKED);
            assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.PROCESSING);
        }
    }

    /**
     * What {@link IdempotencyStore#insertFinished} decided, in a transaction of its own that commits: at once, or,
     * for a store that sends the record with the commit, by the commit's refusal.
     */
    private IdempotencyStore.Insertion insertFinished(ClaimRequest request, Completion completion) {
        try {
            return transactions().inTransaction(() -> store.insertFinished(request, completion, Instant.now()));
        } catch (InsertionRefusedException refused) {
            return refused.insertion();
        }
    }

    private ClaimRequest finishedClaim(IdempotencyScope scope, Duration lockWait) {
        Instant now = Instant.now();
        return new ClaimRequest(scope, Fingerprint.ofDigest(order(7).digest()), now, now.plus(Duration.ofDays(1)),
                lockWait, true);
    }

    private static Completion finished(long orderId) {
        return new Completion(RecordState.SUCCEEDED, ORDER_ID.encode(orderId), Instant.now().plus(Duration.ofDays(1)));
    }

    private static void awaitOrFail(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** An attempt that has claimed its scope and written its order, its transaction held open. */
    private record HeldAttempt(Future<IdempotentResult<Long>> result, CountDownLatch finish) {

        /** Lets the attempt commit and returns its order id. */
        long release() throws Exception {
            finish.countDown();
            return result.get(10, TimeUnit.SECONDS).value();
        }
    }

    private HeldAttempt holdOpen(ExecutorService threads, IdempotencyScope scope) throws InterruptedException {
        CountDownLatch claimed = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        Future<IdempotentResult<Long>> result = threads.submit(() -> engine(Duration.ZERO)
                .execute(scope, order(1), ORDER_ID, attempt -> {
                    long id = insertOrder(1);
                    claimed.countDown();
                    finish.await();
                    return id;
                }));
        assertThat(claimed.await(10, TimeUnit.SECONDS)).isTrue();
        return new HeldAttempt(result, finish);
    }

    private IdempotencyScope newScope() {
        return new IdempotencyScope(owner, "create-order", IdempotencyKey.of(UUID.randomUUID().toString()));
    }

    private long insertOrder(long sku) {
        return insertOrder(owner, sku);
    }

    private static Fingerprint order(long sku) {
        return Fingerprint.builder().method("POST").route("/orders")
                .jsonBody(("{\"skuId\":" + sku + ",\"quantity\":1}").getBytes(StandardCharsets.UTF_8)).build();
    }

    private static final OutcomeCodec<Long> ORDER_ID = codec(201);

    private static OutcomeCodec<Long> codec(int status) {
        return new OutcomeCodec<>() {
            @Override
            public StoredResponse encode(Long orderId) {
                return StoredResponse.of(status, orderId.toString().getBytes(StandardCharsets.UTF_8));
            }

            @Override
            public Long decode(StoredResponse stored) {
                return Long.parseLong(stored.bodyAsString());
            }
        };
    }
}
