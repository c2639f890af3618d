package dev.onceonly.benchmarks.http;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.postgresql.jdbc.PgStatement;

/**
 * The database's floor: what the service's transactions cost PostgreSQL with no Java path in front of them. A plain
 * JDBC loop on the service's tables and pool size (16, HikariCP) runs the statements of (a), an order insert that
 * commits on its own, of (b), a first execution as OnceOnly sends it, and of (g), one that writes its record once,
 * so that the report can set the HTTP ratios b/a and g/b beside the raw ones: what any implementation of those
 * transactions costs PostgreSQL, over the same driver and pool. The statements are the reference service's ({@code OrderService}) and the store's
 * ({@code PostgresDialect}), written out here: a change to either must change them here too.
 *
 * <p>Besides OnceOnly's own claim, between {@code SET LOCAL lock_timeout} and its reset in one round trip, two other
 * ways are measured, so that what the bound costs is a figure: the driver's query timeout, as the store sent it
 * before (it counted a slow database as a lock, issue 39), and no bound at all (what an implementation that lets
 * duplicates wait for as long as the first attempt's transaction runs would send).
 */
final class DatabaseFloor implements AutoCloseable {

    /** One transaction the loop runs. */
    enum Transaction {
        /** (a): the order insert, committed on its own. */
        ORDER_ONLY("floor-a", "order insert, auto-commit"),
        /**
         * (b) as the store sends it: the claim between setting lock_timeout for the transaction and setting it back
         * (one round trip), the order insert, and the completion with the commit, one round trip.
         */
        FIRST_EXECUTION("floor-b", "claim between SET LOCAL lock_timeout and its reset, order insert, completion"
                + " with the commit"),
        /** (b) with the completion and the commit in round trips of their own, as the store sent them before. */
        FIRST_EXECUTION_COMMIT_APART("floor-b-commit-apart", "completion and commit in round trips of their own"),
        /**
         * (b) with the claim bounded by the driver's query timeout (which sends nothing unless it runs out), as the
         * store bounded it before.
         */
        FIRST_EXECUTION_QUERY_TIMEOUT("floor-b-query-timeout", "claim bounded by the driver's query timeout"),
        /** (b) with no lock bound on the claim. */
        FIRST_EXECUTION_UNBOUNDED("floor-b-unbounded", "claim without a lock bound"),
        /**
         * (g) as the store sends it: the order insert, then the finished record between SET LOCAL lock_timeout and
         * the commit, one round trip; no claim.
         */
        WRITE_ONCE("floor-g", "order insert, then the finished record with the commit");

        private final String scenario;
        private final String description;

        Transaction(String scenario, String description) {
            this.scenario = scenario;
            this.description = description;
        }

        String scenario() {
            return scenario;
        }

        String description() {
            return description;
        }
    }

    private static final String OWNER = "bench/floor";
    /** The reference service's lease and the engine's default retention of a success. */
    private static final Duration LEASE = Duration.ofSeconds(10);
    private static final Duration RETENTION = Duration.ofHours(24);
    private static final String OPERATION = "create-order";
    private static final String ORDER_INSERT = "INSERT INTO orders (owner, order_no, sku_id, quantity, amount,"
            + " currency, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING \"id\"";
    private static final String CLAIM = "INSERT INTO onceonly_record (owner, operation, idem_key, fingerprint, state,"
            + " attempt, lease_expires_at, created_at, updated_at, expires_at)"
            + " VALUES (?, ?, ?, ?, 'PROCESSING', 1, ?, ?, ?, ?)"
            + " ON CONFLICT (owner, operation, idem_key) DO NOTHING";
    /** The engine's default lock wait (its wait timeout, 1 s), rounded down to a power of two as the store does. */
    private static final long LOCK_WAIT_MILLIS = 512;
    private static final String LOCK_WAIT = LOCK_WAIT_MILLIS + "ms";
    private static final String CLAIM_SET_LOCAL = "SELECT set_config('onceonly.saved_lock_timeout',"
            + " current_setting('lock_timeout'), true), set_config('lock_timeout', '" + LOCK_WAIT + "', true); "
            + CLAIM + "; SELECT set_config('lock_timeout', current_setting('onceonly.saved_lock_timeout'), true)";
    private static final String COMPLETE = "UPDATE onceonly_record SET state = ?, lease_expires_at = NULL,"
            + " http_status = ?, response_headers = ?, response_body = ?, resource_id = ?, updated_at = ?,"
            + " expires_at = ? WHERE owner = ? AND operation = ? AND idem_key = ?"
            + " AND state = 'PROCESSING' AND attempt = ? AND created_at = ?";

    /** As {@code PostgresDialect} sends it: nothing commits unless the record was inserted. */
    private static final String INSERT_FINISHED_WITH_COMMIT = "SET LOCAL lock_timeout = '" + LOCK_WAIT + "'; "
            + "WITH inserted AS (INSERT INTO onceonly_record (owner, operation, idem_key, fingerprint, state, attempt,"
            + " http_status, response_headers, response_body, resource_id, created_at, updated_at, expires_at)"
            + " VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?)"
            + " ON CONFLICT (owner, operation, idem_key) DO NOTHING RETURNING 1)"
            + " SELECT 1 / count(*) FROM inserted; COMMIT";

    /** As {@code PostgresDialect} sends it: nothing commits unless the completion found its claim. */
    private static final String COMPLETE_WITH_COMMIT = "WITH completed AS (" + COMPLETE + " RETURNING 1)"
            + " SELECT 1 / count(*) FROM completed; COMMIT";

    private final HikariDataSource pool;

    DatabaseFloor(String jdbcUrl, int poolSize) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setMaximumPoolSize(poolSize);
        config.setMinimumIdle(poolSize);
        config.setPoolName("floor");
        pool = new HikariDataSource(config);
    }

    /** Load-driver work that runs {@code transaction} once per call and answers 201, as the endpoint does. */
    LoadDriver.Work work(Transaction transaction) {
        return client -> {
            try (Connection connection = pool.getConnection()) {
                switch (transaction) {
                    case ORDER_ONLY -> insertOrder(connection);
                    case WRITE_ONCE -> writeOnce(connection);
                    default -> firstExecution(connection, transaction);
                }
            }
            return 201;
        };
    }

    private static long insertOrder(Connection connection) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(ORDER_INSERT)) {
            insert.setString(1, OWNER);
            insert.setString(2, UUID.randomUUID().toString().replace("-", ""));
            insert.setLong(3, 42);
            insert.setInt(4, 2);
            insert.setLong(5, 2500);
            insert.setString(6, "EUR");
            insert.setString(7, "PENDING_PAYMENT");
            insert.setObject(8, utc(Instant.now().truncatedTo(ChronoUnit.MICROS)));
            try (ResultSet id = insert.executeQuery()) {
                id.next();
                return id.getLong(1);
            }
        }
    }

    private static void firstExecution(Connection connection, Transaction transaction) throws SQLException {
        inTransaction(connection, () -> {
            String key = UUID.randomUUID().toString();
            Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
            // As the store keeps it for a success: the claim's expiry, unchanged, so that the completion is an
            // update in place (HOT).
            Instant expiresAt = now.plus(LEASE).plus(RETENTION);
            claim(connection, transaction, key, now, expiresAt);
            long orderId = insertOrder(connection);
            boolean commitApart = transaction == Transaction.FIRST_EXECUTION_COMMIT_APART;
            complete(connection, commitApart ? COMPLETE : COMPLETE_WITH_COMMIT, key, orderId, now, expiresAt);
        });
    }

    private static void writeOnce(Connection connection) throws SQLException {
        inTransaction(connection, () -> {
            String key = UUID.randomUUID().toString();
            Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
            long orderId = insertOrder(connection);
            try (PreparedStatement record = connection.prepareStatement(INSERT_FINISHED_WITH_COMMIT)) {
                int i = bindScope(record, 1, key);
                record.setBytes(i++, fingerprint());
                record.setString(i++, "SUCCEEDED");
                i = bindResponse(record, i, key, orderId);
                record.setObject(i++, utc(now));
                record.setObject(i++, utc(now));
                record.setObject(i, utc(now.plus(RETENTION)));
                // With the commit, the statement answers rows, and fails (a division by zero) if it inserted none.
                record.execute();
            }
        });
    }

    /** Statements that may send their transaction's commit themselves. */
    private interface Statements {
        void send() throws SQLException;
    }

    /**
     * Runs {@code statements} in a transaction and commits it; the driver follows the server's transaction state, so
     * the commit sends nothing after a statement that committed.
     */
    private static void inTransaction(Connection connection, Statements statements) throws SQLException {
        connection.setAutoCommit(false);
        try {
            statements.send();
            connection.commit();
        } catch (SQLException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(true);
        }
    }

    private static void claim(Connection connection, Transaction transaction, String key, Instant now,
            Instant expiresAt) throws SQLException {
        String sql = switch (transaction) {
            case FIRST_EXECUTION, FIRST_EXECUTION_COMMIT_APART -> CLAIM_SET_LOCAL;
            case FIRST_EXECUTION_QUERY_TIMEOUT, FIRST_EXECUTION_UNBOUNDED -> CLAIM;
            case ORDER_ONLY, WRITE_ONCE -> throw new IllegalArgumentException("no claim in " + transaction);
        };
        try (PreparedStatement claim = connection.prepareStatement(sql)) {
            // As PostgresDialect bounded it before issue 39, for the engine's default wait
            if (transaction == Transaction.FIRST_EXECUTION_QUERY_TIMEOUT) {
                claim.unwrap(PgStatement.class).setQueryTimeoutMs(LOCK_WAIT_MILLIS);
            }
            int i = bindScope(claim, 1, key);
            claim.setBytes(i, fingerprint());
            claim.setObject(5, utc(now.plus(LEASE)));
            claim.setObject(6, utc(now));
            claim.setObject(7, utc(now));
            claim.setObject(8, utc(expiresAt));
            claim.execute();
        }
    }

    private static void complete(Connection connection, String sql, String key, long orderId, Instant now,
            Instant expiresAt) throws SQLException {
        try (PreparedStatement complete = connection.prepareStatement(sql)) {
            complete.setString(1, "SUCCEEDED");
            bindResponse(complete, 2, key, orderId);
            complete.setObject(6, utc(now));
            complete.setObject(7, utc(expiresAt));
            bindScope(complete, 8, key);
            complete.setInt(11, 1);
            complete.setObject(12, utc(now));
            // With the commit, the statement answers rows, and fails (a division by zero) if it completed none.
            boolean answeredRows = complete.execute();
            if (!answeredRows && complete.getUpdateCount() != 1) {
                throw new IllegalStateException("the completion found no claim");
            }
        }
    }

    private static int bindScope(PreparedStatement statement, int first, String key) throws SQLException {
        statement.setString(first, OWNER);
        statement.setString(first + 1, OPERATION);
        statement.setString(first + 2, key);
        return first + 3;
    }

    /** The endpoint's answer as the store keeps it: status, headers, body and resource id. */
    private static int bindResponse(PreparedStatement statement, int first, String key, long orderId)
            throws SQLException {
        statement.setInt(first, 201);
        statement.setString(first + 1, "Content-Type: application/json\nLocation: /api/orders/" + orderId + "\n");
        statement.setBytes(first + 2, ("{\"orderId\":" + orderId + ",\"orderNo\":\"" + key.substring(0, 12)
                + "\",\"status\":\"PENDING_PAYMENT\"}").getBytes(StandardCharsets.UTF_8));
        statement.setString(first + 3, Long.toString(orderId));
        return first + 4;
    }

    private static byte[] fingerprint() {
        byte[] fingerprint = new byte[32];
        ThreadLocalRandom.current().nextBytes(fingerprint);
        return fingerprint;
    }

    private static OffsetDateTime utc(Instant instant) {
        return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
    }

    /** What the run with Redis alone sets beside its HTTP scenarios: (a), (b) and (g). */
    static List<Transaction> withoutVariants() {
        return List.of(Transaction.ORDER_ONLY, Transaction.FIRST_EXECUTION, Transaction.WRITE_ONCE);
    }

    @Override
    public void close() {
        pool.close();
    }
}
