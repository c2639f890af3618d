package dev.onceonly.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.TransactionRollbackException;
import dev.onceonly.StoredResponse;
import dev.onceonly.spi.CachedOutcome;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.Completion;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.OutcomeCache;
import dev.onceonly.spi.RecordState;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.core.Ordered;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A first execution in a transaction of a data source transaction manager sends its completion with the commit, in
 * one round trip; everywhere else the completion is a statement of its own.
 */
class PostgresCompletionWithCommitIT {

    private static final String ORDER = "INSERT INTO onceonly_it_order (owner, sku) VALUES (?, 7)";

    private final List<String> sent = new CopyOnWriteArrayList<>();
    private final DataSource recorded = recording(TestDatabases.postgres(), sent);
    private final JdbcTemplate jdbc = new JdbcTemplate(recorded);
    private final JdbcIdempotencyStore store = JdbcIdempotencyStore.create(recorded, new PostgresDialect());

    @BeforeAll
    static void createOrders() {
        new JdbcTemplate(TestDatabases.postgres()).execute("CREATE TABLE IF NOT EXISTS onceonly_it_order"
                + " (id bigserial PRIMARY KEY, owner varchar(255) NOT NULL, sku bigint NOT NULL)");
    }

    @Test
    void theCompletionTravelsWithTheCommit() {
        IdempotencyScope scope = newScope();

        placesOneOrder(engine(new DataSourceTransactionManager(recorded)), scope);

        assertThat(completionSent()).endsWith("; COMMIT");
    }

    /** A subclass may do more as it commits, so its transactions send the completion on its own. */
    @Test
    void aTransactionManagerThatMayDoMoreAtCommitGetsTheCompletionOnItsOwn() {
        assertCompletionSentApart(new DataSourceTransactionManager(recorded) {
        });
    }

    /** Execution listeners act between the synchronizations and the commit. */
    @Test
    void aManagerWithExecutionListenersGetsTheCompletionOnItsOwn() {
        DataSourceTransactionManager listened = new DataSourceTransactionManager(recorded);
        listened.setTransactionExecutionListeners(List.of(new TransactionExecutionListener() {
        }));
        assertCompletionSentApart(listened);
    }

    private void assertCompletionSentApart(PlatformTransactionManager manager) {
        IdempotencyScope scope = newScope();

        engine(manager).execute(scope, fingerprint(), new TextCodec(), attempt -> "placed");

        assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.SUCCEEDED);
        assertThat(completionSent()).doesNotContain("COMMIT");
    }

    @Test
    void aCompletionThatFindsNoClaimCommitsNothing() {
        IdempotencyScope scope = newScope();

        assertThatThrownBy(() -> engine(new DataSourceTransactionManager(recorded)).execute(scope, fingerprint(),
                new TextCodec(), attempt -> {
                    jdbc.update(ORDER, scope.owner());
                    // The claim is gone from under the attempt: what the completion would update.
                    jdbc.update("DELETE FROM onceonly_record WHERE owner = ?", scope.owner());
                    return "placed";
                })).isInstanceOfSatisfying(IdempotencyStoreException.class,
                        e -> assertThat(e).hasMessageContaining("nothing was committed"));

        assertThat(orders(scope)).isZero();
        assertThat(store.find(scope)).isEmpty();
    }

    @Test
    void theStoreReadsAHeldCompletionInItsTransaction() {
        IdempotencyScope scope = newScope();
        SpringTransactionRunner runner = runner();

        RecordState seen = runner.inTransaction(() -> {
            claimAndComplete(scope);
            return store.find(scope).orElseThrow().state();
        });

        assertThat(seen).isEqualTo(RecordState.SUCCEEDED);
        assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.SUCCEEDED);
        assertThat(completionSent()).doesNotContain("COMMIT");
    }

    @Test
    void aHeldCompletionRollsBackWithItsTransactionAndLeavesNothingBehind() {
        IdempotencyScope scope = newScope();
        SpringTransactionRunner runner = runner();

        assertThatThrownBy(() -> runner.inTransaction(() -> {
            claimAndComplete(scope);
            throw new IllegalStateException("the work fails after all");
        })).isInstanceOf(IllegalStateException.class);

        assertThat(store.find(scope)).isEmpty();
        IdempotencyScope next = newScope();
        engine(new DataSourceTransactionManager(recorded)).execute(next, fingerprint(), new TextCodec(),
                attempt -> "placed");
        assertThat(store.find(next).orElseThrow().state()).isEqualTo(RecordState.SUCCEEDED);
    }

    @Test
    void aRunnerInsideARunnersWorkSendsEachCompletionWithItsOwnCommit() {
        IdempotencyScope outer = newScope();
        IdempotencyScope inner = newScope();
        DataSourceTransactionManager manager = new DataSourceTransactionManager(recorded);
        TransactionTemplate requiresNew = requiresNew(manager);
        IdempotencyEngine innerEngine = IdempotencyEngine.builder(store)
                .transactions(new SpringTransactionRunner(requiresNew)).build();

        engine(manager).execute(outer, fingerprint(), new TextCodec(), attempt -> {
            innerEngine.execute(inner, fingerprint(), new TextCodec(), nested -> {
                jdbc.update(ORDER, inner.owner());
                return "inner";
            });
            jdbc.update(ORDER, outer.owner());
            return "outer";
        });

        assertThat(List.of(outer, inner)).allSatisfy(scope -> {
            assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.SUCCEEDED);
            assertThat(orders(scope)).isEqualTo(1);
        });
        assertThat(sent).filteredOn(sql -> sql.contains("UPDATE onceonly_record"))
                .hasSize(2).allSatisfy(sql -> assertThat(sql).endsWith("; COMMIT"));
    }

    /** One transaction, one commit: the completion held first goes before the one that takes the commit. */
    @Test
    void twoStoresInOneTransactionCommitOnce() {
        IdempotencyScope outer = newScope();
        IdempotencyScope inner = newScope();
        DataSourceTransactionManager manager = new DataSourceTransactionManager(recorded);
        JdbcIdempotencyStore other = JdbcIdempotencyStore.create(recorded, new PostgresDialect());
        IdempotencyEngine joined = IdempotencyEngine.builder(other)
                .transactions(new SpringTransactionRunner(new TransactionTemplate(manager)))
                .mode(IdempotencyMode.JOINED).build();

        engine(manager).execute(outer, fingerprint(), new TextCodec(), attempt ->
                joined.execute(inner, fingerprint(), new TextCodec(), nested -> "inner").value());

        assertThat(List.of(outer, inner)).allSatisfy(scope ->
                assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.SUCCEEDED));
        assertThat(sent).filteredOn(sql -> sql.contains("UPDATE onceonly_record")).hasSize(2)
                .filteredOn(sql -> sql.contains("COMMIT")).hasSize(1);
    }

    /** What writes at commit after the completion was held commits with it, or nothing commits. */
    @Test
    void aSynchronizationThatWritesAtCommitAfterTheHoldKeepsTheCommitApart() {
        IdempotencyScope scope = newScope();
        SpringTransactionRunner runner = runner();

        assertThatThrownBy(() -> runner.inTransaction(() -> {
            claimAndComplete(scope);
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void beforeCommit(boolean readOnly) {
                    jdbc.update(ORDER, scope.owner());
                    throw new IllegalStateException("refused at commit");
                }
            });
            return null;
        })).isInstanceOf(IllegalStateException.class).hasMessage("refused at commit");

        assertThat(store.find(scope)).isEmpty();
        assertThat(orders(scope)).isZero();
    }

    /** A transaction that a callback begins after a rollback neither sends nor finds the rolled-back completion. */
    @Test
    void aTransactionBegunAfterTheRollbackDoesNotSendItsHeldCompletion() {
        IdempotencyScope scope = newScope();
        IdempotencyScope other = newScope();
        DataSourceTransactionManager manager = new DataSourceTransactionManager(recorded);
        TransactionTemplate requiresNew = requiresNew(manager);
        AtomicReference<Object> found = new AtomicReference<>();

        assertThatThrownBy(() -> new SpringTransactionRunner(new TransactionTemplate(manager)).inTransaction(() -> {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCompletion(int status) {
                    try {
                        found.set(requiresNew.execute(transaction -> store.find(other)));
                    } catch (RuntimeException e) {
                        found.set(e);
                    }
                }
            });
            claimAndComplete(scope);
            throw new IllegalStateException("the work fails after all");
        })).isInstanceOf(IllegalStateException.class);

        assertThat(found.get()).isEqualTo(Optional.empty());
        assertThat(store.find(scope)).isEmpty();
    }

    /** A held completion that could not be sent rolls its transaction back, even if the failure was caught. */
    @Test
    void aHeldCompletionThatCannotBeSentRollsTheTransactionBack() {
        IdempotencyScope scope = newScope();
        SpringTransactionRunner runner = runner();

        assertThatThrownBy(() -> runner.inTransaction(() -> {
            claimAndComplete(scope);
            jdbc.update("DELETE FROM onceonly_record WHERE owner = ?", scope.owner());
            assertThatThrownBy(() -> store.find(scope)).isInstanceOf(IdempotencyStoreException.class);
            jdbc.update(ORDER, scope.owner());
            return null;
        })).isInstanceOf(TransactionRollbackException.class);

        assertThat(orders(scope)).isZero();
    }

    /** A write-once first execution: its own statements, then its record with the commit, two round trips. */
    @Test
    void aRecordWrittenOnceTravelsWithTheCommit() {
        IdempotencyScope scope = newScope();

        placesOneOrder(writingOnce(new DataSourceTransactionManager(recorded)), scope);

        assertThat(sent).filteredOn(sql -> sql.contains("onceonly_record") && !sql.startsWith("SELECT"))
                .singleElement().satisfies(sql -> assertThat(sql).contains("INSERT INTO onceonly_record")
                        .endsWith("; COMMIT"));
    }

    /**
     * The record sent with the commit meets one the scope already has: the commit commits nothing, the work's
     * order neither, and the attempt claims as usual, which replays the record.
     */
    @Test
    void aRecordWrittenOnceThatMeetsAnotherAtTheCommitRollsTheWorkBackAndReplaysIt() {
        IdempotencyScope scope = newScope();
        DataSourceTransactionManager manager = new DataSourceTransactionManager(recorded);
        engine(manager).execute(scope, fingerprint(), new TextCodec(), attempt -> {
            jdbc.update(ORDER, scope.owner());
            return "first";
        });

        var again = writingOnce(manager).execute(scope, fingerprint(), new TextCodec(), attempt -> {
            jdbc.update(ORDER, scope.owner());
            return "second";
        });

        assertThat(again.value()).isEqualTo("first");
        assertThat(again.replayed()).isTrue();
        assertThat(orders(scope)).isEqualTo(1);
        assertThat(sent).filteredOn(sql -> sql.contains("INSERT INTO onceonly_record") && sql.endsWith("; COMMIT"))
                .hasSize(1);
    }

    /** Where the completion goes apart from the commit, the record written once does too. */
    @Test
    void aRecordWrittenOnceGoesApartFromTheCommitWhereACompletionWould() {
        IdempotencyScope scope = newScope();

        writingOnce(new DataSourceTransactionManager(recorded) {
        }).execute(scope, fingerprint(), new TextCodec(), attempt -> "placed");

        assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.SUCCEEDED);
        assertThat(sent).filteredOn(sql -> sql.contains("INSERT INTO onceonly_record")).singleElement()
                .satisfies(sql -> assertThat(sql).doesNotContain("COMMIT"));
    }

    /**
     * A record held back for the commit but sent before it, by a store call of a synchronization that acts first,
     * meets another: the transaction can no longer commit the work's writes, even though that call's refusal was
     * swallowed, and its caller hears that it rolled back.
     */
    @Test
    void aHeldRecordSentBeforeTheCommitThatMeetsAnotherLeavesNothingToCommit() {
        IdempotencyScope scope = newScope();
        engine(new DataSourceTransactionManager(recorded)).execute(scope, fingerprint(), new TextCodec(),
                attempt -> "first");
        SpringTransactionRunner runner = runner();

        assertThatThrownBy(() -> runner.inTransaction(() -> {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public int getOrder() {
                    return Ordered.HIGHEST_PRECEDENCE;
                }

                @Override
                public void beforeCommit(boolean readOnly) {
                    try {
                        store.find(newScope());
                    } catch (RuntimeException swallowed) {
                        // what a careless synchronization does
                    }
                }
            });
            jdbc.update(ORDER, scope.owner());
            assertThat(store.insertFinished(finishedRequest(scope), success(), Instant.now()))
                    .isEqualTo(IdempotencyStore.Insertion.INSERTED);
            return null;
        })).isInstanceOf(TransactionRollbackException.class);

        assertThat(orders(scope)).isZero();
        assertThat(store.find(scope).orElseThrow().response().bodyAsString()).isEqualTo("first");
    }

    @AfterEach
    void leavesNoResourceBound() {
        assertThat(TransactionSynchronizationManager.getResourceMap()).isEmpty();
    }

    /** Runs a first execution that places an order, and checks that it and its record committed. */
    private void placesOneOrder(IdempotencyEngine engine, IdempotencyScope scope) {
        String answer = engine.execute(scope, fingerprint(), new TextCodec(), attempt -> {
            jdbc.update(ORDER, scope.owner());
            return "placed";
        }).value();

        assertThat(answer).isEqualTo("placed");
        assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.SUCCEEDED);
        assertThat(orders(scope)).isEqualTo(1);
    }

    /** The one completion the store sent. */
    private String completionSent() {
        List<String> completions = sent.stream().filter(sql -> sql.contains("UPDATE onceonly_record")).toList();
        assertThat(completions).hasSize(1);
        return completions.getFirst();
    }

    /** Claims {@code scope} and completes it in the current transaction, which holds the completion back. */
    private void claimAndComplete(IdempotencyScope scope) {
        assertThat(store.complete(scope, claim(scope).token(), success(), Instant.now())).isTrue();
    }

    private static ClaimRequest finishedRequest(IdempotencyScope scope) {
        Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        return new ClaimRequest(scope, fingerprint(), now, now.plusSeconds(3600), Duration.ofMillis(500), true);
    }

    private ClaimResult.Claimed claim(IdempotencyScope scope) {
        Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        ClaimRequest request = new ClaimRequest(scope, fingerprint(), now.plusSeconds(30), now.plusSeconds(3600),
                Duration.ofMillis(500), true);
        return (ClaimResult.Claimed) store.claim(request, now);
    }

    private static Completion success() {
        return new Completion(RecordState.SUCCEEDED, StoredResponse.of(201, "placed".getBytes(StandardCharsets.UTF_8)),
                Instant.now().plusSeconds(3600));
    }

    private static TransactionTemplate requiresNew(PlatformTransactionManager manager) {
        TransactionTemplate template = new TransactionTemplate(manager);
        template.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        return template;
    }

    private SpringTransactionRunner runner() {
        return new SpringTransactionRunner(new TransactionTemplate(new DataSourceTransactionManager(recorded)));
    }

    private IdempotencyEngine engine(PlatformTransactionManager manager) {
        return IdempotencyEngine.builder(store)
                .transactions(new SpringTransactionRunner(new TransactionTemplate(manager))).build();
    }

    /** An engine that writes first executions once: a shared cache's marker holds every duplicate off. */
    private IdempotencyEngine writingOnce(PlatformTransactionManager manager) {
        return IdempotencyEngine.builder(store).transactions(new SpringTransactionRunner(new TransactionTemplate(
                manager))).outcomeCache(new AlwaysEntered()).writeOnce(true).build();
    }

    /** A shared cache that knows nothing and gives every attempt a marker. */
    private static final class AlwaysEntered implements OutcomeCache {

        @Override
        public Entry enter(IdempotencyScope scope, Fingerprint fingerprint, boolean writesOnce) {
            return new Entered(new Marker(UUID.randomUUID().toString()), true);
        }

        @Override
        public void remember(IdempotencyScope scope, CachedOutcome outcome) {
        }

        @Override
        public void leave(IdempotencyScope scope, Marker marker) {
        }
    }

    private int orders(IdempotencyScope scope) {
        Integer count = jdbc.queryForObject("SELECT count(*) FROM onceonly_it_order WHERE owner = ?", Integer.class,
                scope.owner());
        return count == null ? 0 : count;
    }

    private static IdempotencyScope newScope() {
        return new IdempotencyScope("commit-" + UUID.randomUUID(), "place-order",
                IdempotencyKey.of(UUID.randomUUID().toString()));
    }

    private static Fingerprint fingerprint() {
        return Fingerprint.builder().method("POST").route("/orders")
                .rawBody("order".getBytes(StandardCharsets.UTF_8)).build();
    }

    /** {@code dataSource}, recording the SQL of every statement its connections prepare. */
    private static DataSource recording(DataSource dataSource, List<String> sent) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    Object result = invoke(dataSource, method, args);
                    return result instanceof Connection connection ? recording(connection, sent) : result;
                });
    }

    private static Connection recording(Connection connection, List<String> sent) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("prepareStatement")) {
                        sent.add((String) args[0]);
                    }
                    return invoke(connection, method, args);
                });
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
