package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.memory.InMemoryIdempotencyStore;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** One operation's policy: a value checked by the engine's rules, run on its engine's store, memory and runner. */
class OperationPolicyTest {

    private final IdempotencyEngine engine = IdempotencyEngine.builder(new InMemoryIdempotencyStore())
            .waitTimeout(Duration.ofSeconds(3)).retryAfter(Duration.ofSeconds(7)).build();

    @Test
    void whatAPolicyLeavesUnsetIsTheEnginesAndWhatItSetsIsItsOwn() {
        Retention week = new Retention(Duration.ofDays(7), Duration.ofDays(1));

        IdempotencyEngine operation = engine.forOperation(OperationPolicy.ENGINE_DEFAULTS
                .withWaitTimeout(Duration.ofMillis(200)).withRetention(week));

        assertThat(operation.waitTimeout()).isEqualTo(Duration.ofMillis(200));
        assertThat(operation.retention()).isEqualTo(week);
        assertThat(operation.retryAfter()).isEqualTo(Duration.ofSeconds(7));
        assertThat(operation.mode()).isEqualTo(IdempotencyMode.LEASED);
        assertThat(engine.waitTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(engine.retention()).isEqualTo(Retention.DEFAULT);
    }

    @Test
    void aPolicyIsCheckedByTheEnginesRulesWhenItIsMade() {
        assertThatThrownBy(() -> OperationPolicy.ENGINE_DEFAULTS.withWaitTimeout(Duration.ofMinutes(11)))
                .isInstanceOfSatisfying(IdempotencyConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("waitTimeout"));
        assertThatThrownBy(() -> OperationPolicy.ENGINE_DEFAULTS.withLeaseDuration(Duration.ofDays(2)))
                .isInstanceOfSatisfying(IdempotencyConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("leaseDuration"));
        assertThatThrownBy(() -> OperationPolicy.ENGINE_DEFAULTS.withMode(IdempotencyMode.AUTO))
                .isInstanceOfSatisfying(IdempotencyConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("mode"));
    }

    @Test
    void aTransactionalOperationNeedsTheEnginesTransactions() {
        OperationPolicy transactional = OperationPolicy.ENGINE_DEFAULTS.withMode(IdempotencyMode.TRANSACTIONAL);

        assertThatThrownBy(() -> engine.forOperation(transactional))
                .isInstanceOfSatisfying(IdempotencyConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("mode"));
    }

    @Test
    void operationsAndTransactionsOfAnEngineWaitForTheAttemptsItRunsHereAndNeverTakeThemOver() throws Exception {
        IdempotencyScope scope = new IdempotencyScope("alice", "create-order", IdempotencyKey.of("operation-1"));
        IdempotencyEngine operation = engine.forOperation(OperationPolicy.ENGINE_DEFAULTS
                .withWaitTimeout(Duration.ZERO));
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService first = Executors.newSingleThreadExecutor();
        try {
            Future<IdempotentResult<String>> result = first.submit(() -> engine.execute(scope,
                    TestRequests.request("a"), TestRequests.TEXT, attempt -> {
                        running.countDown();
                        release.await();
                        return "created";
                    }));
            assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

            assertThat(operation.attemptRunningHere(scope)).isPresent();
            assertThat(engine.withTransactions(new TransactionRunner() {
                @Override
                public <T> T inTransaction(Supplier<T> work) {
                    return work.get();
                }
            }).attemptRunningHere(scope)).isPresent();
            assertThatThrownBy(() -> operation.execute(scope, TestRequests.request("a"), TestRequests.TEXT,
                    attempt -> "again")).isInstanceOf(RequestInProgressException.class);

            release.countDown();
            assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo(new IdempotentResult<>("created", false));
            assertThat(operation.execute(scope, TestRequests.request("a"), TestRequests.TEXT, attempt -> "again"))
                    .isEqualTo(new IdempotentResult<>("created", true));
        } finally {
            release.countDown();
            first.shutdownNow();
        }
    }

    @Test
    void policiesAreValues() {
        assertThat(OperationPolicy.ENGINE_DEFAULTS.withWaitTimeout(Duration.ofSeconds(1)))
                .isEqualTo(OperationPolicy.ENGINE_DEFAULTS.withWaitTimeout(Duration.ofSeconds(1)))
                .isNotEqualTo(OperationPolicy.ENGINE_DEFAULTS);
        assertThat(engine.forOperation(OperationPolicy.ENGINE_DEFAULTS)).isSameAs(engine);
    }
}
