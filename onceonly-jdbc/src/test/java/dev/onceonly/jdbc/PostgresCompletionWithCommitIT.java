package dev.onceonly.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.StoredResponse;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.Completion;
import dev.onceonly.spi.RecordState;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
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

        String answer = engine(new DataSourceTransactionManager(recorded)).execute(scope, fingerprint(),
                new TextCodec(), attempt -> {
                    jdbc.update(ORDER, scope.owner());
                    return "placed";
                }).value();

        assertThat(answer).isEqualTo("placed");
        assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.SUCCEEDED);
        assertThat(orders(scope)).isEqualTo(1);
        assertThat(completionSent()).endsWith("; COMMIT");
    }

    /** A subclass may do more as it commits, so its transactions send the completion on its own. */
    @Test
    void aTransactionManagerThatMayDoMoreAtCommitGetsTheCompletionOnItsOwn() {
        IdempotencyScope scope = newScope();
        var subclass = new DataSourceTransactionManager(recorded) {
        };

        engine(subclass).execute(scope, fingerprint(), new TextCodec(), attempt -> "placed");

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
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(recorded));
        SpringTransactionRunner runner = new SpringTransactionRunner(transaction);

        RecordState seen = runner.inTransaction(() -> {
            ClaimResult.Claimed claimed = claim(scope);
            assertThat(store.complete(scope, claimed.token(), success(), Instant.now())).isTrue();
            return store.find(scope).orElseThrow().state();
        });

        assertThat(seen).isEqualTo(RecordState.SUCCEEDED);
        assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.SUCCEEDED);
        assertThat(completionSent()).doesNotContain("COMMIT");
    }

    @Test
    void aHeldCompletionRollsBackWithItsTransactionAndLeavesNothingBehind() {
        IdempotencyScope scope = newScope();
        SpringTransactionRunner runner = new SpringTransactionRunner(
                new TransactionTemplate(new DataSourceTransactionManager(recorded)));

        assertThatThrownBy(() -> runner.inTransaction(() -> {
            ClaimResult.Claimed claimed = claim(scope);
            store.complete(scope, claimed.token(), success(), Instant.now());
            throw new IllegalStateException("the work fails after all");
        })).isInstanceOf(IllegalStateException.class);

        assertThat(store.find(scope)).isEmpty();
        IdempotencyScope next = newScope();
        engine(new DataSourceTransactionManager(recorded)).execute(next, fingerprint(), new TextCodec(),
                attempt -> "placed");
        assertThat(store.find(next).orElseThrow().state()).isEqualTo(RecordState.SUCCEEDED);
    }

    /** The one completion the store sent. */
    private String completionSent() {
        List<String> completions = sent.stream().filter(sql -> sql.contains("UPDATE onceonly_record")).toList();
        assertThat(completions).hasSize(1);
        return completions.getFirst();
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

    private IdempotencyEngine engine(PlatformTransactionManager manager) {
        return IdempotencyEngine.builder(store)
                .transactions(new SpringTransactionRunner(new TransactionTemplate(manager))).build();
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
