package dev.onceonly.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.tck.IdempotencyStoreContract;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The contract on a pool with auto-commit, PostgreSQL's default; a leased claim of a record another transaction
 * holds must still be bounded by its lock wait.
 */
class PostgresIdempotencyStoreIT extends IdempotencyStoreContract
        implements PostgresHeldRecordTests, PostgresSlowDatabaseTests, StoreFailureTests, AuditModeTests,
        ClocksApartTests {

    @Override
    public List<String> createTablesLike(String table) {
        return List.of("CREATE TABLE " + table + " (LIKE " + JdbcIdempotencyStore.DEFAULT_TABLE + " INCLUDING ALL)",
                "CREATE TABLE " + table + JdbcIdempotencyStore.AUDIT_SUFFIX + " (LIKE "
                        + JdbcIdempotencyStore.DEFAULT_TABLE + JdbcIdempotencyStore.AUDIT_SUFFIX + " INCLUDING ALL)");
    }

    @Override
    protected IdempotencyStore createStore(Clock clock) {
        return jdbcStore();
    }

    @Override
    public DataSource dataSource() {
        return TestDatabases.postgres();
    }

    @Override
    public JdbcDialect dialect() {
        return new PostgresDialect();
    }

    @Override
    public List<String> tableWithUniqueResourceIds(String table) {
        return List.of("CREATE TABLE IF NOT EXISTS " + table + " (LIKE " + JdbcIdempotencyStore.DEFAULT_TABLE
                + " INCLUDING ALL)", "CREATE UNIQUE INDEX IF NOT EXISTS " + table + "_resource_id ON " + table
                + " (resource_id)");
    }

    @Test
    void purgeUsesTheExpiresAtIndex() throws Exception {
        try (Connection connection = TestDatabases.postgres().getConnection();
                var statement = connection.createStatement()) {
            statement.execute("SET enable_seqscan = off");
            try (ResultSet plan = statement.executeQuery("EXPLAIN " + new PostgresDialect()
                    .purgeExpired(JdbcIdempotencyStore.DEFAULT_TABLE)
                    .replaceFirst("\\?", "now()").replaceFirst("\\?", "1000"))) {
                StringBuilder text = new StringBuilder();
                while (plan.next()) {
                    text.append(plan.getString(1)).append('\n');
                }
                assertThat(text).contains("onceonly_record_expires_at_idx");
            } finally {
                statement.execute("RESET enable_seqscan");
            }
        }
    }

    // issue 39: the bound was the driver's query timeout, which counted a slow statement as a lock wait. As the
    // store sends it, lock_timeout lasts to the end of a leased claim's own transaction, and where the caller's
    // transaction goes on it is set back, within the same round trip, to the caller's own value.
    @Test
    void claimWritesBoundTheirLockWaitsAndGiveTheCallersTransactionItsOwnBoundBack() throws Exception {
        PostgresDialect postgres = new PostgresDialect();
        try (Connection connection = TestDatabases.postgres().getConnection()) {
            connection.setAutoCommit(false);
            try {
                assertThat(lockTimeoutAfter(connection, postgres.boundedWrite("SELECT 1", Duration.ofMillis(300),
                        false))).isEqualTo("256ms");
                assertThat(lockTimeoutAfter(connection, "SET LOCAL lock_timeout = '7s'")).isEqualTo("7s");
                assertThat(lockTimeoutAfter(connection, postgres.boundedWrite("SELECT 1", Duration.ZERO, true)))
                        .isEqualTo("7s");
            } finally {
                connection.rollback();
            }
        }
    }

    private static String lockTimeoutAfter(Connection connection, String statements) throws SQLException {
        try (var statement = connection.createStatement()) {
            statement.execute(statements);
            try (ResultSet setting = statement.executeQuery("SHOW lock_timeout")) {
                setting.next();
                return setting.getString(1);
            }
        }
    }

    // A leased claim runs its bounded statements in a transaction of its own: SET LOCAL bounds nothing outside one,
    // and such a claim would wait for another transaction's uncommitted claim for as long as that one lasts.
    @Test
    void noBoundedClaimStatementCommitsOnItsOwnOnAnAutoCommitPool() throws Exception {
        List<Boolean> autoCommitWhenBounded = new CopyOnWriteArrayList<>();
        IdempotencyStore store = JdbcIdempotencyStore.create(
                recordingAutoCommitOfBoundedStatements(TestDatabases.postgres(), autoCommitWhenBounded),
                new PostgresDialect());
        IdempotencyScope scope = newScope();
        Instant now = Instant.parse("2030-01-01T00:00:00Z");
        Fingerprint fingerprint = Fingerprint.builder().method("POST").route("/orders").component("body", "a").build();

        // A first claim (insert), then one after its lease ran out (take-over)
        assertThat(store.claim(new ClaimRequest(scope, fingerprint, now.plusSeconds(1), now.plusSeconds(3600),
                Duration.ofSeconds(1), false), now)).isInstanceOf(ClaimResult.Claimed.class);
        Instant later = now.plusSeconds(2);
        assertThat(store.claim(new ClaimRequest(scope, fingerprint, later.plusSeconds(1), later.plusSeconds(3600),
                Duration.ofSeconds(1), false), later)).isInstanceOf(ClaimResult.Claimed.class);

        assertThat(autoCommitWhenBounded).hasSizeGreaterThanOrEqualTo(2).containsOnly(false);
    }

    /**
     * {@code dataSource}, recording for each statement that bounds its lock waits whether its connection was in
     * auto-commit when it ran.
     */
    private static DataSource recordingAutoCommitOfBoundedStatements(DataSource dataSource, List<Boolean> record) {
        return new DelegatingDataSource(dataSource) {
            @Override
            public Connection getConnection() throws SQLException {
                Connection connection = super.getConnection();
                return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
                        new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                            Object result = invoke(method, connection, args);
                            if (result instanceof PreparedStatement statement
                                    && args[0] instanceof String sql && sql.contains("lock_timeout")) {
                                return recording(statement, connection, record);
                            }
                            return result;
                        });
            }
        };
    }

    private static PreparedStatement recording(PreparedStatement statement, Connection connection,
            List<Boolean> record) {
        return (PreparedStatement) Proxy.newProxyInstance(PostgresIdempotencyStoreIT.class.getClassLoader(),
                new Class<?>[] {PreparedStatement.class}, (proxy, method, args) -> {
                    if (method.getName().startsWith("execute")) {
                        record.add(connection.getAutoCommit());
                    }
                    return invoke(method, statement, args);
                });
    }

    private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Test
    void unreachableDatabaseIsAStoreException() {
        var unreachable = new DriverManagerDataSource("jdbc:postgresql://127.0.0.1:1/test?user=postgres"
                + "&connectTimeout=1");
        IdempotencyStore store = JdbcIdempotencyStore.create(unreachable, new PostgresDialect());

        assertThatThrownBy(() -> store.find(newScope()))
                .isInstanceOf(IdempotencyStoreException.class)
                .hasMessageContaining("failed to find");
    }

    @Test
    void tableNameMustBeAPlainIdentifier() {
        assertThatThrownBy(() -> JdbcIdempotencyStore.create(TestDatabases.postgres(), new PostgresDialect(),
                "records; DROP TABLE x"))
                .isInstanceOf(IdempotencyConfigurationException.class)
                .hasMessageContaining("table name");
    }
}
