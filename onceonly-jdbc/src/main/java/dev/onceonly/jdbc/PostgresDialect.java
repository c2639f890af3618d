package dev.onceonly.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.jdbc.AutoSave;
import org.postgresql.jdbc.PgStatement;

/**
 * PostgreSQL 12+: {@code INSERT … ON CONFLICT DO NOTHING}, {@code timestamptz}, a JDBC query timeout on the
 * claim's writes, and purge of the rows locked by {@code FOR UPDATE SKIP LOCKED}. A plain {@code SELECT} never
 * waits for a row lock, so the claim's read needs no bound.
 *
 * <p>Assumes READ COMMITTED, PostgreSQL's default: a claim that waited for another transaction's uncommitted
 * claim then reads the committed record with its next statement. Under REPEATABLE READ or SERIALIZABLE the
 * database refuses that read with a serialization failure, which the store answers as "in progress".
 */
public final class PostgresDialect extends JdbcDialect {

    private static final String LOCK_NOT_AVAILABLE = "55P03";
    /** A claim's query timeout ran out ({@link #prepareBoundedWrite}), or someone cancelled it. */
    private static final String QUERY_CANCELED = "57014";
    private static final String SERIALIZATION_FAILURE = "40001";
    private static final String DEADLOCK_DETECTED = "40P01";
    private static final String DIVISION_BY_ZERO = "22012";
    /** Joins the rows a purge locked ({@code doomed}) to the rows it deletes ({@code r}). */
    private static final String SAME_ROW = " WHERE r.ctid = doomed.ctid AND r.tableoid = doomed.tableoid";

    @Override
    public String name() {
        return "postgresql";
    }

    @Override
    public String migrationLocation() {
        return "classpath:dev/onceonly/jdbc/schema/postgresql";
    }

    @Override
    public FlywayModule flywayModule() {
        return new FlywayModule("org.flywaydb:flyway-database-postgresql", "org.flywaydb.database.postgresql.PostgreSQLDatabaseType");
    }

    @Override
    protected String insertIfAbsent(String table) {
        return "INSERT INTO " + table + " (owner, operation, idem_key, fingerprint, state, attempt,"
                + " lease_expires_at, created_at, updated_at, expires_at)"
                + " VALUES (?, ?, ?, ?, 'PROCESSING', 1, ?, ?, ?, ?)"
                + " ON CONFLICT (owner, operation, idem_key) DO NOTHING";
    }

    @Override
    protected String insertFinished(String table) {
        return "INSERT INTO " + table + FINISHED_VALUES + " ON CONFLICT (owner, operation, idem_key) DO NOTHING";
    }

    /**
     * The locked rows are deleted by their physical address (a parameterized TID scan), with their table's oid
     * because a ctid is unique only within one partition of a partitioned table: about 2.5 times faster than
     * finding each again through the primary key (measured: 5,000 rows in 15-20 ms instead of 44-56 ms). The row
     * lock keeps every locked row where it is until the delete.
     */
    @Override
    protected String purgeExpired(String table) {
        return lockedExpired(table) + " DELETE FROM " + table + " r USING doomed" + SAME_ROW;
    }

    private static String lockedExpired(String table) {
        return "WITH doomed AS (SELECT tableoid, ctid FROM " + table + " WHERE expires_at <= ? LIMIT ?"
                + " FOR UPDATE SKIP LOCKED)";
    }

    @Override
    protected boolean purgesInOneStatement() {
        return true;
    }

    @Override
    protected String moveExpiredToAudit(String table, String auditTable) {
        return lockedExpired(table) + ", gone AS (DELETE FROM " + table + " r USING doomed" + SAME_ROW
                + " RETURNING r.*), audited AS ("
                + insertUnlessPresent(auditTable, "(" + AUDIT_COLUMNS + ") SELECT " + AUDITED_FIELDS + ", ? FROM gone")
                + ") SELECT count(*) FROM gone";
    }

    @Override
    protected String insertUnlessPresent(String table, String columnsAndRows) {
        return "INSERT INTO " + table + " " + columnsAndRows + " ON CONFLICT DO NOTHING";
    }

    @Override
    protected String purgeAudit(String auditTable) {
        return "WITH doomed AS (SELECT tableoid, ctid FROM " + auditTable
                + " WHERE audit_expires_at <= ? LIMIT ? FOR UPDATE SKIP LOCKED)"
                + " DELETE FROM " + auditTable + " r USING doomed" + SAME_ROW;
    }

    /**
     * Bounded by the driver, not by a setting of the database: a JDBC query timeout, which costs PostgreSQL
     * nothing unless it runs out, and then aborts the statement (and its transaction) with a cancel request the
     * driver sends on a connection of its own (57014). {@code SET LOCAL lock_timeout} before the claim and back to
     * the default after it, as the store sent it before, cost PostgreSQL two statements in every claim: 2-6 % of
     * the raw first execution's throughput (the benchmark's {@code floor-b-set-local} against {@code floor-b}: 2-3 %
     * in the report of 2026-12-06 07:45, 6 % in a loop of seven interleaved rounds). A timeout bounds the
     * statement's whole run rather than its lock waits alone; a claim that takes longer for another reason is
     * answered as locked, which the engine tries again while its wait lasts, as on MariaDB. With the PostgreSQL JDBC
     * driver in milliseconds; with another driver in the whole seconds of the JDBC standard, rounded up.
     *
     * <p>What a timeout that runs out costs instead: the driver's cancel request, a new connection, for which
     * PostgreSQL starts a process, sent from the driver's one timer thread. It runs out only for a duplicate that
     * meets another instance's uncommitted claim in transactional or joined mode and outlasts the bound. The cancel
     * request must reach the server: a proxy that does not forward it leaves such a duplicate waiting for as long
     * as the other transaction lasts (PgBouncer forwards it).
     */
    @Override
    protected PreparedStatement prepareBoundedWrite(Connection connection, String sql, Duration lockWait)
            throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        try {
            long millis = lockBoundMillis(lockWait);
            if (!Pgjdbc.PRESENT || !Pgjdbc.setQueryTimeoutMillis(statement, millis)) {
                statement.setQueryTimeout((int) Math.min(Integer.MAX_VALUE, Math.ceilDiv(millis, 1000)));
            }
            return statement;
        } catch (SQLException | RuntimeException e) {
            statement.close();
            throw e;
        }
    }

    /**
     * A leased claim on an auto-commit connection would commit within its bounded statement, and a query timeout
     * that runs out there cuts short the commit's wait for synchronous replication: PostgreSQL then answers with a
     * warning, the commit stands locally, and the claim counts as made although a failover to the standby can lose
     * it, and with it the guarantee that the work runs once. In a transaction of its own, the commit comes after
     * the bound.
     */
    @Override
    protected boolean claimsInTransactionOfItsOwn() {
        return true;
    }

    /**
     * The completion as a data-modifying {@code WITH} whose {@code SELECT} divides by the rows it completed: with
     * none, the division fails, the transaction aborts, and the {@code COMMIT} sent with it is never run.
     */
    @Override
    protected String completeWithCommit(String table) {
        return "WITH completed AS (" + complete(table) + " RETURNING 1) SELECT 1 / count(*) FROM completed; COMMIT";
    }

    /**
     * The PostgreSQL JDBC driver follows the server's transaction state, and its {@code commit()} sends nothing
     * once a statement has committed; unless it wraps statements in savepoints of its own ({@code autosave}), which
     * it would then try to release outside a transaction.
     */
    @Override
    protected boolean commitsWithStatement(Connection connection) throws SQLException {
        return Pgjdbc.PRESENT && Pgjdbc.commitsWithStatement(connection);
    }

    @Override
    protected boolean isNothingCompleted(SQLException e) {
        return DIVISION_BY_ZERO.equals(e.getSQLState());
    }

    /** Loaded only where the PostgreSQL JDBC driver is: the dialect does not require it. */
    private static final class Pgjdbc {

        static final boolean PRESENT = isPresent();

        /** The driver, of a version that has the method {@link #setQueryTimeoutMillis} calls (42.2 and later). */
        private static boolean isPresent() {
            try {
                Class.forName("org.postgresql.PGConnection", false, PostgresDialect.class.getClassLoader());
                Class.forName("org.postgresql.jdbc.PgStatement", false, PostgresDialect.class.getClassLoader())
                        .getMethod("setQueryTimeoutMs", long.class);
                return true;
            } catch (ReflectiveOperationException | LinkageError e) {
                return false;
            }
        }

        /** Sets the timeout if {@code statement} is the PostgreSQL JDBC driver's; returns whether it was. */
        static boolean setQueryTimeoutMillis(PreparedStatement statement, long millis) throws SQLException {
            if (!statement.isWrapperFor(PgStatement.class)) {
                return false;
            }
            statement.unwrap(PgStatement.class).setQueryTimeoutMs(millis);
            return true;
        }

        static boolean commitsWithStatement(Connection connection) throws SQLException {
            return connection.isWrapperFor(PGConnection.class)
                    && connection.unwrap(PGConnection.class).getAutosave() == AutoSave.NEVER;
        }
    }

    @Override
    protected boolean isUndefinedTable(SQLException e) {
        return "42P01".equals(e.getSQLState());
    }

    @Override
    protected boolean isLockNotAvailable(SQLException e) {
        String state = e.getSQLState();
        return LOCK_NOT_AVAILABLE.equals(state) || QUERY_CANCELED.equals(state)
                || SERIALIZATION_FAILURE.equals(state) || DEADLOCK_DETECTED.equals(state);
    }

    @Override
    protected void setInstant(PreparedStatement statement, int index, @Nullable Instant instant)
            throws SQLException {
        if (instant == null) {
            statement.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
        } else {
            statement.setObject(index, OffsetDateTime.ofInstant(instant, ZoneOffset.UTC));
        }
    }

    @Override
    protected @Nullable Instant getInstant(ResultSet resultSet, String column) throws SQLException {
        OffsetDateTime value = resultSet.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }
}
