package dev.onceonly.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.TransactionRunner;
import dev.onceonly.spi.RecordState;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

public class PostgresTransactionalModeIT extends JdbcTransactionalModeContract {

    public PostgresTransactionalModeIT() {
        super(TestDatabases.postgres(), new PostgresDialect(), "CREATE TABLE IF NOT EXISTS onceonly_it_order"
                + " (id bigserial PRIMARY KEY, owner varchar(255) NOT NULL, sku bigint NOT NULL)",
                "SELECT pg_backend_pid()", TestDatabases.POSTGRES_WAITERS_BLOCKED_BY,
                // PostgreSQL extends a table or an index under a lock of its own, which a fresh key's insert waits
                // for under load; a table lock stands in for it.
                "LOCK TABLE onceonly_record IN SHARE MODE");
    }

    // issue 8: the commit's SQLException ("Key (code)=(…) already exists") reached the exception and its cause.
    @Test
    void commitTheDatabaseRefusesIsAStoreErrorWithoutTheDatabasesMessage() {
        JdbcTemplate jdbc = new JdbcTemplate(TestDatabases.postgres());
        jdbc.execute("CREATE TABLE IF NOT EXISTS onceonly_it_voucher (code varchar(64)"
                + " UNIQUE DEFERRABLE INITIALLY DEFERRED)");
        JdbcIdempotencyStore store = JdbcIdempotencyStore.create(TestDatabases.postgres(), new PostgresDialect());
        for (var manager : List.of(new DataSourceTransactionManager(TestDatabases.postgres()),
                new JdbcTransactionManager(TestDatabases.postgres()))) {
            IdempotencyEngine engine = IdempotencyEngine.builder(store)
                    .transactions(new SpringTransactionRunner(new TransactionTemplate(manager))).build();
            IdempotencyScope scope = new IdempotencyScope("tx-" + UUID.randomUUID(), "issue-voucher",
                    IdempotencyKey.of(UUID.randomUUID().toString()));
            String marker = "marker-" + UUID.randomUUID();

            assertThatThrownBy(() -> engine.execute(scope, fingerprint(), new TextCodec(), attempt -> {
                // Two equal codes: the deferred constraint refuses them only at commit.
                jdbc.update("INSERT INTO onceonly_it_voucher (code) VALUES (?), (?)", marker, marker);
                return "issued";
            })).isInstanceOfSatisfying(IdempotencyStoreException.class, e -> {
                assertThat(e).hasMessageContaining("23505");
                assertThat(StackTraces.printed(e)).doesNotContain(marker);
            });
            assertThat(store.find(scope)).isEmpty();
        }
    }

    // issue 8: the store's connection, bound only by the synchronization of another DataSource's transaction, counted
    // as joined: in auto-commit, claim and completion committed at once, outside the business transaction; from a
    // pool without auto-commit, nothing was ever committed, and the retry ran again.
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void transactionalModeOnATransactionManagerOfAnotherDataSourceFailsWithoutCommittingAnything(boolean autoCommit) {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.create(pool(autoCommit), new PostgresDialect());
        IdempotencyEngine engine = IdempotencyEngine.builder(store).transactions(otherDataSourcesTransactions())
                .build();
        IdempotencyScope scope = newScope();
        AtomicBoolean ran = new AtomicBoolean();

        assertThatThrownBy(() -> engine.execute(scope, fingerprint(), new TextCodec(), attempt -> {
            ran.set(true);
            return "issued";
        })).isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("transactional mode");

        assertThat(ran).isFalse();
        assertThat(store.find(scope)).isEmpty();
    }

    // issue 8 (review): inside another DataSource's transaction, a leased outcome waited on a connection bound to
    // that transaction's synchronization, and from a pool without auto-commit it was rolled back with it.
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void leasedOutcomeInsideAnotherDataSourcesTransactionIsCommittedOnItsOwn(boolean autoCommit) {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.create(pool(autoCommit), new PostgresDialect());
        IdempotencyEngine engine = IdempotencyEngine.builder(store).mode(IdempotencyMode.LEASED).build();
        IdempotencyScope scope = newScope();
        TransactionRunner other = otherDataSourcesTransactions();

        assertThatThrownBy(() -> other.inTransaction(() -> {
            engine.execute(scope, fingerprint(), new TextCodec(), attempt -> "issued");
            throw new IllegalStateException("the other data source's transaction rolls back");
        })).isInstanceOf(IllegalStateException.class);

        assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.SUCCEEDED);
    }

    private static DataSource pool(boolean autoCommit) {
        return autoCommit ? TestDatabases.postgres() : TestDatabases.postgresWithoutAutoCommit();
    }

    private static TransactionRunner otherDataSourcesTransactions() {
        var otherDataSource = new DriverManagerDataSource("jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        return new SpringTransactionRunner(new TransactionTemplate(new DataSourceTransactionManager(otherDataSource)));
    }

    private static IdempotencyScope newScope() {
        return new IdempotencyScope("tx-" + UUID.randomUUID(), "issue-voucher",
                IdempotencyKey.of(UUID.randomUUID().toString()));
    }

    private static Fingerprint fingerprint() {
        return Fingerprint.builder().method("POST").route("/vouchers")
                .rawBody("voucher".getBytes(StandardCharsets.UTF_8)).build();
    }
}
