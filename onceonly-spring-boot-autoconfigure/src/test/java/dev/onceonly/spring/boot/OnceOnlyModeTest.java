package dev.onceonly.spring.boot;

import static dev.onceonly.spring.boot.StartupFailure.assertStartupFailure;
import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.TransactionRunner;
import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.IdempotencyStore;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.transaction.TransactionManager;

/** Transactional mode is chosen explicitly or from exactly one runner, never lost silently (issue 8). */
class OnceOnlyModeTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(OnceOnlyAutoConfiguration.class))
            .withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new);

    @Test
    void oneRunnerMakesAutoModeTransactional() {
        runner.withBean(TransactionRunner.class, PassThroughTransactionRunner::new).run(context ->
                assertThat(context.getBean(IdempotencyEngine.class).mode()).isEqualTo(IdempotencyMode.TRANSACTIONAL));
    }

    @Test
    void twoRunnersStopStartupNamingBoth() {
        runner.withBean("ordersRunner", TransactionRunner.class, PassThroughTransactionRunner::new)
                .withBean("billingRunner", TransactionRunner.class, PassThroughTransactionRunner::new)
                .run(context -> assertStartupFailure(context).hasMessageContaining("ordersRunner")
                        .hasMessageContaining("billingRunner").hasMessageContaining("@Primary"));
    }

    @Test
    void twoRunnersOfWhichOneIsPrimaryAreNotAmbiguous() {
        runner.withBean("ordersRunner", TransactionRunner.class, PassThroughTransactionRunner::new,
                        bean -> bean.setPrimary(true))
                .withBean("billingRunner", TransactionRunner.class, PassThroughTransactionRunner::new)
                .run(context -> assertThat(context.getBean(IdempotencyEngine.class).mode())
                        .isEqualTo(IdempotencyMode.TRANSACTIONAL));
    }

    @Test
    void transactionManagerWithoutRunnerStopsStartupInAutoMode() {
        runner.withBean(TransactionManager.class, () -> new TransactionManager() { })
                .run(context -> assertStartupFailure(context).hasMessageContaining("onceonly.mode")
                        .hasMessageContaining("TransactionRunner").hasMessageContaining("onceonly.mode=leased"));
    }

    @Test
    void transactionalModeWithoutRunnerStopsStartup() {
        runner.withPropertyValues("onceonly.mode=transactional")
                .run(context -> assertStartupFailure(context).hasMessageContaining("onceonly.mode")
                        .hasMessageContaining("needs a TransactionRunner"));
    }

    @Test
    void joinedModeForRequestsStopsStartupEvenWithARunner() {
        runner.withPropertyValues("onceonly.mode=joined")
                .withBean(TransactionRunner.class, PassThroughTransactionRunner::new)
                .run(context -> assertStartupFailure(context).hasMessageContaining("onceonly.mode")
                        .hasMessageContaining("joined mode runs in the caller's transaction"));
    }

    @Test
    void leasedModeRunsWithoutRunnerBesideATransactionManager() {
        runner.withPropertyValues("onceonly.mode=leased")
                .withBean(TransactionManager.class, () -> new TransactionManager() { })
                .run(context -> assertThat(context.getBean(IdempotencyEngine.class).mode())
                        .isEqualTo(IdempotencyMode.LEASED));
    }

    @Test
    void leasedModeWinsOverARunner() {
        runner.withPropertyValues("onceonly.mode=leased")
                .withBean(TransactionRunner.class, PassThroughTransactionRunner::new)
                .run(context -> assertThat(context.getBean(IdempotencyEngine.class).mode())
                        .isEqualTo(IdempotencyMode.LEASED));
    }

}
