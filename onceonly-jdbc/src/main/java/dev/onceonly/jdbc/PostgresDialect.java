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

/**
 * PostgreSQL 12+: {@code INSERT … ON CONFLICT DO NOTHING}, {@code timestamptz}, {@code SET LOCAL lock_timeout}
 * around the claim's writes (in the same round trip), and purge of the rows locked by
 * {@code FOR UPDATE SKIP LOCKED}. A plain {@code SELECT} never waits for a row lock, so the claim's read needs no
 * bound.
 *
 * <p>Assumes READ COMMITTED, PostgreSQL's default: a claim that waited for another transaction's uncommitted
 * claim then reads the committed record with its next statement. Under REPEATABLE READ or SERIALIZABLE the
 * database refuses that read with a serialization failure, which the store answers as "in progress".
 */
public final class PostgresDialect extends JdbcDialect {

    private static final String LOCK_NOT_AVAILABLE = "55P03";
    /** Where a claim keeps the caller's {@code lock_timeout} while its own bound is set. */
    static final String SAVED_LOCK_TIMEOUT = "onceonly.saved_lock_timeout";
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
     * {@code lock_timeout} set for the transaction before the statement, in the same round trip, and where the
     * caller's transaction goes on, set back after it to what it was, the caller's own {@code SET} or {@code SET
     * LOCAL} included (kept meanwhile in the placeholder setting {@value #SAVED_LOCK_TIMEOUT}), so that its business
     * statements are not held to the claim's bound. {@code lock_timeout} counts only the time spent waiting for a
     * lock: a claim on a slow database (a disk stall, a synchronous standby) takes as long as its insert takes and is
     * not refused as in progress. A JDBC query timeout, which the store used before, counted the statement's whole
     * run, refused every fresh leased key once inserts took longer than 128 ms, and cancelled each such statement
     * from the driver's one timer thread over a new connection while the database was already slow (issue 39); it
     * also scheduled and cancelled a timer task for every claim. A setting for the transaction does nothing outside
     * one, which is why a claim that commits on its own runs in a transaction of its own
     * ({@link #claimsInTransactionOfItsOwn}); there, the commit ends the setting and nothing is set back.
     */
    @Override
    protected String boundedWrite(String statement, Duration lockWait, boolean transactionGoesOn) {
        // Never 0, which lock_timeout reads as "wait forever".
        String bound = "'" + lockBoundMillis(lockWait) + "ms'";
        if (!transactionGoesOn) {
            return "SET LOCAL lock_timeout = " + bound + "; " + statement;
        }
        return "SELECT set_config('" + SAVED_LOCK_TIMEOUT + "', current_setting('lock_timeout'), true),"
                + " set_config('lock_timeout', " + bound + ", true); " + statement
                + "; SELECT set_config('lock_timeout', current_setting('" + SAVED_LOCK_TIMEOUT + "'), true)";
    }

    /** {@code SET LOCAL} bounds nothing outside a transaction (see {@link #boundedWrite}). */
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
     * The lock bound set for the rest of the transaction, which ends with the statement: nothing to set back.
     */
    @Override
    protected String insertFinishedWithCommit(String insert, Duration lockWait) {
        return "SET LOCAL lock_timeout = '" + lockBoundMillis(lockWait) + "ms'; " + insertFinishedOrFail(insert)
                + "; COMMIT";
    }

    /** As a data-modifying {@code WITH} whose {@code SELECT} divides by the rows it inserted, as the completion's. */
    @Override
    protected String insertFinishedOrFail(String insert) {
        return "WITH inserted AS (" + insert + " RETURNING 1) SELECT 1 / count(*) FROM inserted";
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

        private static boolean isPresent() {
            try {
                Class.forName("org.postgresql.PGConnection", false, PostgresDialect.class.getClassLoader());
                return true;
            } catch (ReflectiveOperationException | LinkageError e) {
                return false;
            }
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
        return LOCK_NOT_AVAILABLE.equals(state) || SERIALIZATION_FAILURE.equals(state)
                || DEADLOCK_DETECTED.equals(state);
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

    @Override
    protected String currentTime() {
        return "SELECT clock_timestamp() AS now";
    }
}
