package dev.onceonly.spring.boot.method;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.IdempotencyKeyReusedException;
import dev.onceonly.InvalidIdempotencyKeyException;
import dev.onceonly.spring.boot.method.MethodOrders.CreateOrder;
import dev.onceonly.spring.boot.method.MethodOrders.ImportOrder;
import dev.onceonly.spring.boot.method.MethodOrders.OrderView;
import dev.onceonly.spring.boot.method.MethodOrders.OutOfStockException;
import dev.onceonly.spring.method.OutcomeNotReplayableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The seed article's concurrency cases through a service method on the real PostgreSQL, in each mode the method can
 * run in: the business effect counted is the order row each run writes.
 */
@Timeout(120)
@SpringBootTest(classes = MethodOrdersApplication.class, properties = {
        "spring.datasource.url=${onceonly.test.postgres.url:jdbc:postgresql://127.0.0.1:5432/test?user=postgres}",
        // The shared test database holds other tests' tables; the store migrates its own, under its own history.
        "spring.flyway.enabled=false",
        "onceonly.wait-timeout=20s",
        // The test threads call without a principal.
        "onceonly.method.allow-anonymous=true"})
class IdempotentMethodIT {

    @Value("${spring.datasource.url}")
    String url;
    @Autowired
    MethodOrders orders;
    @Autowired
    TransactionTemplate transactions;

    private final String key = UUID.randomUUID().toString();
    private final CreateOrder order = new CreateOrder("sku-1", 2, null);

    private OrderView call(MethodMode mode, String customer, String key, CreateOrder order) {
        return mode.call(orders, transactions, customer, key, order);
    }

    @AfterEach
    void reset() {
        orders.failNext(0);
        orders.workFor(Duration.ZERO);
    }

    @ParameterizedTest
    @EnumSource(MethodMode.class)
    void sameKeyTwiceRunsOnceAndTheRetryGetsTheFirstResult(MethodMode mode) {
        int runs = orders.runs();

        OrderView first = call(mode, "alice", key, order);
        OrderView second = call(mode, "alice", key, order);

        assertThat(second).isEqualTo(first);
        assertThat(orders.rows(key)).isEqualTo(1);
        assertThat(orders.runs() - runs).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(MethodMode.class)
    void twentyConcurrentCallsRunOnceAndAllGetTheSameResult(MethodMode mode) throws Exception {
        orders.workFor(Duration.ofMillis(300));
        int runs = orders.runs();
        List<OrderView> results = mode.concurrently(20, orders, transactions, "alice", key, order);

        assertThat(results).hasSize(20).containsOnly(results.getFirst());
        assertThat(orders.rows(key)).isEqualTo(1);
        assertThat(orders.runs() - runs).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(MethodMode.class)
    void theKeyWithOtherArgumentsIsRefused(MethodMode mode) {
        call(mode, "alice", key, order);

        assertThatThrownBy(() -> call(mode, "alice", key, new CreateOrder("sku-1", 3, null)))
                .isInstanceOf(IdempotencyKeyReusedException.class);
        assertThat(orders.rows(key)).isEqualTo(1);
    }

    /** Leased mode stores it final instead: OnceOnlyMethodAutoConfigurationTest. */
    @Test
    void aTransactionalResultThatCannotBeStoredRollsBackAndLeavesTheKeyToARetry() {
        int runs = orders.runs();

        for (int call = 0; call < 2; call++) {
            assertThatThrownBy(() -> orders.exportTransactional("alice", key))
                    .isInstanceOf(OutcomeNotReplayableException.class).hasMessageContaining("was rolled back")
                    .extracting(e -> ((OutcomeNotReplayableException) e).problemType())
                    .isEqualTo("result-not-storable");
        }

        assertThat(orders.rows(key)).isZero();
        assertThat(orders.runs() - runs).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(MethodMode.class)
    void aFailureLeavesNothingAndTheRetrySucceeds(MethodMode mode) {
        orders.failNext(1);

        assertThatThrownBy(() -> call(mode, "alice", key, order)).isInstanceOf(IllegalStateException.class)
                .hasMessage("The warehouse did not answer");
        assertThat(orders.rows(key)).isZero();

        OrderView retried = call(mode, "alice", key, order);
        assertThat(orders.rows(key)).isEqualTo(1);
        assertThat(call(mode, "alice", key, order)).isEqualTo(retried);
    }

    @ParameterizedTest
    @EnumSource(MethodMode.class)
    void twoOwnersWithOneKeyAreTwoCalls(MethodMode mode) {
        OrderView alices = call(mode, "alice", key, order);
        OrderView bobs = call(mode, "bob", key, order);

        assertThat(bobs.id()).isNotEqualTo(alices.id());
        assertThat(orders.rows(key)).isEqualTo(2);
        assertThat(call(mode, "bob", key, order)).isEqualTo(bobs);
    }

    @ParameterizedTest
    @EnumSource(MethodMode.class)
    void theReplayIsTheFirstResultReadBackAsTheDeclaredType(MethodMode mode) {
        OrderView first = call(mode, "alice", key, order);
        int runs = orders.runs();

        Object replayed = call(mode, "alice", key, order);

        assertThat(replayed).isInstanceOf(OrderView.class).isEqualTo(first);
        assertThat(orders.runs()).isEqualTo(runs);
    }

    @ParameterizedTest
    @EnumSource(value = MethodMode.class, names = {"TRANSACTIONAL", "LEASED"})
    void aFinalExceptionIsStoredWithoutItsWritesAndThrownAgain(MethodMode mode) {
        CreateOrder tooMany = new CreateOrder("sku-1", MethodOrders.STOCK + 1, null);
        assertThatThrownBy(() -> call(mode, "alice", key, tooMany)).isInstanceOf(OutOfStockException.class);
        int runs = orders.runs();

        assertThatThrownBy(() -> call(mode, "alice", key, tooMany)).isInstanceOf(OutOfStockException.class)
                .hasMessage("Only 100 of sku-1 left");
        assertThat(orders.runs()).isEqualTo(runs);
        assertThat(orders.rows(key)).isZero();
    }

    /** In joined mode the caller's transaction decides: a caller that commits keeps the final exception. */
    @Test
    void aJoinedFinalExceptionIsKeptWhenTheCallerCommits() {
        CreateOrder tooMany = new CreateOrder("sku-1", MethodOrders.STOCK + 1, null);
        Runnable caller = () -> transactions.executeWithoutResult(status -> {
            assertThatThrownBy(() -> orders.createJoined("alice", key, tooMany))
                    .isInstanceOf(OutOfStockException.class).hasMessage("Only 100 of sku-1 left");
        });
        caller.run();
        int runs = orders.runs();

        caller.run();

        assertThat(orders.runs()).isEqualTo(runs);
        assertThat(orders.rows(key)).isZero();
    }

    @Test
    void aJoinedCallWhoseCallerRollsBackLeavesTheKeyFree() {
        transactions.executeWithoutResult(status -> {
            orders.createJoined("alice", key, order);
            status.setRollbackOnly();
        });
        assertThat(orders.rows(key)).isZero();

        transactions.executeWithoutResult(status -> orders.createJoined("alice", key, order));
        assertThat(orders.rows(key)).isEqualTo(1);
    }

    @Test
    void theLeasedMethodGetsItsAttemptAndExcludedFieldsStayOutOfTheFingerprint() {
        OrderView first = orders.createLeased("alice", key, order, null);

        OrderView again = orders.createLeased("alice", key, new CreateOrder("sku-1", 2, "gift wrap"), null);

        assertThat(first.attempt()).isEqualTo(1);
        assertThat(again).isEqualTo(first);
    }

    @Test
    void theKeyAndOwnerMayComeFromExpressionsAndAutoJoinsACallersTransaction() {
        ImportOrder command = new ImportOrder(key, "sku-9", 1);
        // Joined: the caller's rollback takes the call's row and its key with it.
        transactions.executeWithoutResult(status -> {
            orders.importOrder(command);
            status.setRollbackOnly();
        });
        assertThat(orders.rows(key)).isZero();

        OrderView first = orders.importOrder(command);

        assertThat(orders.importOrder(command)).isEqualTo(first);
        assertThat(orders.rows(key)).isEqualTo(1);
        assertThatThrownBy(() -> orders.importOrder(new ImportOrder(null, "sku-9", 1)))
                .isInstanceOf(InvalidIdempotencyKeyException.class);
    }

    /** Two instances: the race is decided by PostgreSQL's unique key, not by one process's memory. */
    @ParameterizedTest
    @EnumSource(MethodMode.class)
    void concurrentCallsOnTwoInstancesRunOnce(MethodMode mode) throws Exception {
        try (ConfigurableApplicationContext second = new SpringApplicationBuilder(MethodOrdersApplication.class)
                .web(WebApplicationType.NONE).properties("spring.datasource.url=" + url, "spring.flyway.enabled=false",
                        "onceonly.wait-timeout=20s", "onceonly.method.allow-anonymous=true")
                .run()) {
            MethodOrders otherOrders = second.getBean(MethodOrders.class);
            TransactionTemplate otherTransactions = second.getBean(TransactionTemplate.class);
            orders.workFor(Duration.ofMillis(300));
            otherOrders.workFor(Duration.ofMillis(300));
            ExecutorService instances = Executors.newFixedThreadPool(2);
            try {
                Future<List<OrderView>> here = instances.submit(() -> mode.concurrently(10, orders, transactions,
                        "alice", key, order));
                Future<List<OrderView>> there = instances.submit(() -> mode.concurrently(10, otherOrders,
                        otherTransactions, "alice", key, order));
                List<OrderView> results = new ArrayList<>(here.get());
                results.addAll(there.get());

                assertThat(results).hasSize(20).containsOnly(results.getFirst());
            } finally {
                instances.shutdownNow();
            }
        }
        assertThat(orders.rows(key)).isEqualTo(1);
    }
}
