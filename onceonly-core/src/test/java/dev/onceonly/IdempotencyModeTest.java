package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.memory.InMemoryIdempotencyStore;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The mode an engine is built with is explicit; transactional mode is never lost silently (issue 8). */
class IdempotencyModeTest {

    private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
    private final CountingRunner runner = new CountingRunner();

    @Test
    void autoModeIsTransactionalWithARunnerAndLeasedWithout() {
        assertThat(IdempotencyEngine.builder(store).transactions(runner).build().mode())
                .isEqualTo(IdempotencyMode.TRANSACTIONAL);
        assertThat(IdempotencyEngine.builder(store).build().mode()).isEqualTo(IdempotencyMode.LEASED);
    }

    @Test
    void transactionalModeWithoutRunnerIsRefusedAtBuild() {
        IdempotencyEngineBuilder builder = IdempotencyEngine.builder(store).mode(IdempotencyMode.TRANSACTIONAL);

        assertThatThrownBy(builder::build).isInstanceOfSatisfying(IdempotencyConfigurationException.class, e -> {
            assertThat(e.setting()).isEqualTo("mode");
            assertThat(e.getMessage()).contains("needs a TransactionRunner");
        });
    }

    @Test
    void joinedModeWithoutRunnerIsRefusedAtBuild() {
        IdempotencyEngineBuilder builder = IdempotencyEngine.builder(store).mode(IdempotencyMode.JOINED);

        assertThatThrownBy(builder::build).isInstanceOfSatisfying(IdempotencyConfigurationException.class,
                e -> assertThat(e.getMessage()).contains("joined mode needs a TransactionRunner"));
    }

    @Test
    void joinedModeOutsideACallersTransactionFailsBeforeRunningTheWork() {
        IdempotencyEngine joined = IdempotencyEngine.builder(store).transactions(runner)
                .mode(IdempotencyMode.JOINED).build();
        AtomicInteger runs = new AtomicInteger();

        assertThatThrownBy(() -> joined.execute(IdempotencyScope.of("alice", "consume",
                IdempotencyKey.of(UUID.randomUUID().toString())), Fingerprint.builder().method("MESSAGE").build(),
                OutcomeCodec.identity(), attempt -> {
                    runs.incrementAndGet();
                    return StoredResponse.result(new byte[0]);
                })).isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("none is active");
        assertThat(runs).hasValue(0);
    }

    @Test
    void leasedModeBesideARunnerRunsTheWorkOutsideAnyTransaction() {
        IdempotencyEngine leased = IdempotencyEngine.builder(store).transactions(runner)
                .mode(IdempotencyMode.LEASED).build();

        leased.execute(scope(), Fingerprint.builder().build(), OutcomeCodec.identity(),
                attempt -> StoredResponse.of(201, new byte[0]));

        assertThat(leased.mode()).isEqualTo(IdempotencyMode.LEASED);
        assertThat(runner.transactions).hasValue(0);
    }

    @Test
    void anOperationOfALeasedEngineMayChooseTransactionalWithItsRunner() {
        IdempotencyEngine leased = IdempotencyEngine.builder(store).transactions(runner)
                .mode(IdempotencyMode.LEASED).build();

        IdempotencyEngine operation = leased.forOperation(OperationPolicy.ENGINE_DEFAULTS
                .withMode(IdempotencyMode.TRANSACTIONAL));

        assertThat(operation.mode()).isEqualTo(IdempotencyMode.TRANSACTIONAL);
        assertThat(leased.forOperation(OperationPolicy.ENGINE_DEFAULTS)).isSameAs(leased);
        assertThat(leased.toBuilder().build().mode()).isEqualTo(IdempotencyMode.LEASED);
    }

    private static IdempotencyScope scope() {
        return IdempotencyScope.of("alice", "create-order", IdempotencyKey.of(UUID.randomUUID().toString()));
    }

    private static final class CountingRunner implements TransactionRunner {
        final AtomicInteger transactions = new AtomicInteger();

        @Override
        public <T> T inTransaction(Supplier<T> work) {
            transactions.incrementAndGet();
            return work.get();
        }
    }
}
