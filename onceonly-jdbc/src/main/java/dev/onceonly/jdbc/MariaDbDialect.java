package dev.onceonly.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import org.jspecify.annotations.Nullable;

/**
 * MariaDB 10.6+ on InnoDB. (MySQL lacks {@code SET STATEMENT}; it is not supported yet.)
 *
 * <p>Assumptions, and why the statements look as they do:
 * <ul>
 *   <li><b>Row counts, not duplicate-key errors.</b> The claim is {@code INSERT IGNORE}: 1 row inserted, 0 row
 *       present. Catching error 1062 inside a transaction would leave it to drivers and frameworks that mark
 *       such a transaction rollback-only. {@code IGNORE} also turns other errors into warnings; every value is
 *       validated before it is bound, and the table has no foreign keys or triggers, so the only error it can
 *       hide is the duplicate. {@code ON DUPLICATE KEY UPDATE} would not do: with Connector/J's default
 *       {@code useAffectedRows=false} a no-op update reports 1 row, the same as an insert.</li>
 *   <li><b>REPEATABLE READ</b> (InnoDB's default). A plain read inside an older transaction would see the
 *       snapshot from before a concurrent claim committed, so the claim reads with {@code LOCK IN SHARE MODE},
 *       which reads the latest committed version.</li>
 *   <li><b>Gap locks and deadlocks.</b> Claimers of one new key queue on its index record. If the transaction
 *       holding it rolls back, two waiters may deadlock on the gap; InnoDB rolls one back (error 1213), which the
 *       store answers as {@code Locked} and the engine retries within its wait. Lock wait timeouts (1205) are
 *       answered the same way.</li>
 *   <li><b>Lock waits in whole seconds, and below one second the statement's time.</b> {@code
 *       innodb_lock_wait_timeout} only takes whole seconds, so a claim with a second or more left is bounded by its
 *       lock wait rounded down. With less left, {@code max_statement_time} (fractional, and it ends a lock wait too)
 *       bounds the claim's statement instead, to the lock wait but never under 128 ms: a fresh key's insert waits
 *       for gap locks that are not its key's (the next-key lock a duplicate's insert or locking read holds on
 *       another key covers the gap before it), and with no wait at all ({@code innodb_lock_wait_timeout = 0}, as
 *       this dialect once sent) such a claim of a key no one else used was answered as in progress. A duplicate
 *       that meets an uncommitted claim thus waits 128 ms at least, and never blocks a pooled connection much
 *       longer than its lock wait. {@code max_statement_time} bounds the whole statement, not only its lock waits:
 *       a claim's insert that takes longer for any other reason is answered as locked too, and the engine tries
 *       again while the wait lasts. The bound is set per statement with {@code SET STATEMENT … FOR}, so the rest of
 *       the transaction keeps its own setting.</li>
 *   <li><b>Purge</b> in two steps, in one transaction, because MariaDB cannot skip locked rows in a
 *       {@code DELETE}: select up to the limit of expired scopes by the {@code expires_at} index with
 *       {@code FOR UPDATE SKIP LOCKED} (MariaDB 10.6+), then delete those by primary key. A record that another
 *       transaction holds is left for a later purge instead of being waited for.</li>
 * </ul>
 */
public final class MariaDbDialect extends JdbcDialect {

    private static final int LOCK_WAIT_TIMEOUT = 1205;
    private static final int DEADLOCK = 1213;
    /**
     * ER_STATEMENT_TIMEOUT: the statement ran past its {@code max_statement_time}, nearly always waiting for a lock;
     * a claim's statement slow for another reason (or a server-wide {@code max_statement_time}) is answered as
     * locked too, which the engine retries while the wait lasts (see the class comment).
     */
    private static final int STATEMENT_TIMEOUT = 1969;

    @Override
    public String name() {
        return "mariadb";
    }

    @Override
    public String migrationLocation() {
        return "classpath:dev/onceonly/jdbc/schema/mariadb";
    }

    @Override
    public FlywayModule flywayModule() {
        return new FlywayModule("org.flywaydb:flyway-mysql", "org.flywaydb.database.mysql.mariadb.MariaDBDatabaseType");
    }

    @Override
    protected String insertIfAbsent(String table) {
        return "INSERT IGNORE INTO " + table + " (owner, operation, idem_key, fingerprint, state, attempt,"
                + " lease_expires_at, created_at, updated_at, expires_at)"
                + " VALUES (?, ?, ?, ?, 'PROCESSING', 1, ?, ?, ?, ?)";
    }

    @Override
    protected String insertFinished(String table) {
        return "INSERT IGNORE INTO " + table + FINISHED_VALUES;
    }

    @Override
    protected String selectForClaim(String table) {
        return select(table) + " LOCK IN SHARE MODE";
    }

    @Override
    protected String purgeExpired(String table) {
        return "SELECT owner, operation, idem_key FROM " + table
                + " WHERE expires_at <= ? ORDER BY expires_at LIMIT ? FOR UPDATE SKIP LOCKED";
    }

    /** The state column's collation ignores case: a corrupt 'succeeded' would count as SUCCEEDED. */
    @Override
    protected String exactly(String column) {
        return "BINARY " + column;
    }

    @Override
    protected boolean purgesInOneStatement() {
        return false;
    }

    @Override
    protected String moveExpiredToAudit(String table, String auditTable) {
        return purgeExpired(table);
    }

    @Override
    protected String insertUnlessPresent(String table, String columnsAndRows) {
        return "INSERT IGNORE INTO " + table + " " + columnsAndRows;
    }

    @Override
    protected String purgeAudit(String auditTable) {
        return "SELECT owner, operation, idem_key, created_at FROM " + auditTable
                + " WHERE audit_expires_at <= ? ORDER BY audit_expires_at LIMIT ? FOR UPDATE SKIP LOCKED";
    }

    /** A bound of the statement alone ({@code SET STATEMENT … FOR}), whatever follows it. */
    @Override
    protected String boundedWrite(String statement, Duration lockWait, boolean transactionGoesOn) {
        return bounded(statement, lockWait);
    }

    /** The locking read waits for row locks too, so it gets the same per-statement bound. */
    @Override
    protected String boundedRead(String statement, Duration lockWait) {
        return bounded(statement, lockWait);
    }

    /** {@code statement} with its lock wait bounded by {@code SET STATEMENT … FOR}. */
    static String bounded(String statement, Duration lockWait) {
        if (lockWait.toSeconds() >= 1) {
            return "SET STATEMENT innodb_lock_wait_timeout = " + lockWait.toSeconds() + " FOR " + statement;
        }
        return "SET STATEMENT innodb_lock_wait_timeout = 1, max_statement_time = " + lockBoundMillis(lockWait) / 1000.0
                + " FOR " + statement;
    }

    /** ER_NO_SUCH_TABLE. */
    @Override
    protected boolean isUndefinedTable(SQLException e) {
        return e.getErrorCode() == 1146;
    }

    @Override
    protected boolean isLockNotAvailable(SQLException e) {
        return e.getErrorCode() == LOCK_WAIT_TIMEOUT || e.getErrorCode() == DEADLOCK
                || e.getErrorCode() == STATEMENT_TIMEOUT || "40001".equals(e.getSQLState());
    }

    @Override
    protected void setInstant(PreparedStatement statement, int index, @Nullable Instant instant)
            throws SQLException {
        if (instant == null) {
            statement.setNull(index, Types.TIMESTAMP);
        } else {
            statement.setObject(index, LocalDateTime.ofInstant(instant, ZoneOffset.UTC));
        }
    }

    @Override
    protected @Nullable Instant getInstant(ResultSet resultSet, String column) throws SQLException {
        LocalDateTime value = resultSet.getObject(column, LocalDateTime.class);
        return value == null ? null : value.toInstant(ZoneOffset.UTC);
    }

    @Override
    protected String currentTime() {
        // The statement's start, which for a statement of its own is now.
        return "SELECT UTC_TIMESTAMP(6) AS now";
    }
}
