package dev.onceonly.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * The SQL of one database for {@link JdbcIdempotencyStore}. The store owns the algorithm; a dialect supplies
 * statements and value bindings only. Statements that every supported database accepts live here; a dialect
 * overrides what differs. Parameter orders are part of the contract and documented on each method.
 */
public abstract class JdbcDialect {

    /** The columns {@link #select} reads, in order. */
    static final String RECORD_COLUMNS = "owner, operation, idem_key, fingerprint, state, attempt, failures,"
            + " lease_expires_at, next_attempt_at, http_status, response_headers, response_body, resource_id,"
            + " created_at, updated_at, expires_at";

    private static final String SCOPE = " WHERE owner = ? AND operation = ? AND idem_key = ?";

    /** The columns of an audit row. */
    protected static final String AUDIT_COLUMNS = "owner, operation, idem_key, created_at, fingerprint, state,"
            + " attempt, failures, http_status, resource_id, updated_at, expired_at, audit_expires_at";

    /** What a record gives its audit row, in {@link #AUDIT_COLUMNS} order, all but the audit's own expiry. */
    protected static final String AUDITED_FIELDS = "owner, operation, idem_key, created_at, fingerprint, state,"
            + " attempt, failures, http_status, resource_id, updated_at, expires_at";

    /** A short name for logs and metrics, such as {@code postgresql}. */
    public abstract String name();

    /** The Flyway location of this dialect's migrations. */
    public abstract String migrationLocation();

    /**
     * The Flyway database module {@link JdbcSchema#migrate} needs for this database: its Maven coordinates, and a
     * class it holds. {@code null} if unknown, and then not checked.
     */
    public @Nullable FlywayModule flywayModule() {
        return null;
    }

    /**
     * A Flyway database module.
     *
     * @param coordinates its Maven group and artifact id, such as {@code org.flywaydb:flyway-mysql}
     * @param databaseType the name of its database type class, present when the module is
     */
    public record FlywayModule(String coordinates, String databaseType) {
    }

    /**
     * Inserts a PROCESSING record with attempt 1 unless the scope exists; never fails on a duplicate, and
     * reports the outcome as a row count (1 inserted, 0 present). Parameters: owner, operation, key,
     * fingerprint, lease_expires_at, created_at, updated_at, expires_at.
     */
    protected abstract String insertIfAbsent(String table);

    /**
     * Inserts a finished record with attempt 1 unless the scope exists, reporting the outcome as a row count as
     * {@link #insertIfAbsent} does. Parameters: owner, operation, key, fingerprint, state, http_status,
     * response_headers, response_body, resource_id, created_at, updated_at, expires_at.
     */
    protected abstract String insertFinished(String table);

    /** The columns and values of {@link #insertFinished}, after the table's name. */
    protected static final String FINISHED_VALUES = " (owner, operation, idem_key, fingerprint, state, attempt,"
            + " http_status, response_headers, response_body, resource_id, created_at, updated_at, expires_at)"
            + " VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?)";

    /**
     * Purges up to a number of expired records, skipping rows other transactions lock. Parameters: now, limit.
     * Either a statement that deletes them and reports a row count, or, for a database that cannot skip locked
     * rows in a {@code DELETE}, a query that locks them and returns their owner, operation and key, which the
     * store then deletes by key with {@link #delete}, in one batch in the same transaction.
     */
    protected abstract String purgeExpired(String table);

    /** Whether {@link #purgeExpired} is the statement form (which deletes), not the query form (which locks). */
    protected abstract boolean purgesInOneStatement();

    /**
     * Audit mode's purge: like {@link #purgeExpired}, but the statement form also copies each deleted record's
     * {@linkplain #AUDIT_COLUMNS audit fields} into {@code auditTable} (unless there already) and answers one row
     * with the number of records deleted. Parameters: now, limit, audit_expires_at. The query form is
     * {@link #purgeExpired}'s: the store then copies each selected record with {@link #copyToAudit} before deleting
     * it.
     */
    protected abstract String moveExpiredToAudit(String table, String auditTable);

    /**
     * Copies the audit fields of a record into {@code auditTable} unless it is there already. Parameters:
     * audit_expires_at, owner, operation, key.
     */
    protected String copyToAudit(String table, String auditTable) {
        return insertUnlessPresent(auditTable, "(" + AUDIT_COLUMNS + ") SELECT " + AUDITED_FIELDS + ", ? FROM "
                + table + SCOPE);
    }

    /**
     * Writes an audit row from values read before, unless it is there already: for the version of a record that a
     * claim has just replaced. Parameters: the {@link #AUDIT_COLUMNS} in order.
     */
    protected String insertAudit(String auditTable) {
        return insertUnlessPresent(auditTable, "(" + AUDIT_COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    }

    /** Locks a record for the rest of the transaction. Parameters: owner, operation, key. */
    protected String lock(String table) {
        return "SELECT attempt FROM " + table + SCOPE + " FOR UPDATE";
    }

    /** Whether {@code e} says that a table does not exist. */
    protected abstract boolean isUndefinedTable(SQLException e);

    /** {@code INSERT INTO table columnsAndRows} that skips rows whose key is present instead of failing. */
    protected abstract String insertUnlessPresent(String table, String columnsAndRows);

    /**
     * Purges up to a number of audit rows past their own expiry, skipping locked rows, in one of the two forms of
     * {@link #purgeExpired}; the query form returns owner, operation, key and created_at, which the store deletes
     * with {@link #deleteAudit}. Parameters: now, limit.
     */
    protected abstract String purgeAudit(String auditTable);

    /** Deletes an audit row. Parameters: owner, operation, key, created_at. */
    protected String deleteAudit(String auditTable) {
        return "DELETE FROM " + auditTable + SCOPE + " AND created_at = ?";
    }

    /**
     * The shortest lock bound a dialect sends. A database's lock timeout bounds every lock a statement waits for, not
     * only another claim's of the same key: a fresh key's insert can wait briefly for a lock that is not its key's
     * (the one PostgreSQL takes to extend a table or an index, InnoDB's next-key lock that a duplicate of another key
     * holds on the gap), and under a bound of next to nothing (1 ms on PostgreSQL, 0 on MariaDB, when no wait was
     * left) such a claim of a key no one else used was refused as in progress. A duplicate that meets an uncommitted
     * claim therefore waits this long at least.
     */
    static final long MIN_LOCK_WAIT_MILLIS = 128;

    /**
     * {@code lockWait} in milliseconds as a dialect sends it: never under {@value #MIN_LOCK_WAIT_MILLIS}, and rounded
     * down to a power of two, so that a bound written into a statement's text (MariaDB's), and with it a driver's
     * cache entry, takes only a few forms.
     */
    protected static long lockBoundMillis(Duration lockWait) {
        return Long.highestOneBit(Math.max(MIN_LOCK_WAIT_MILLIS, lockWait.toMillis()));
    }

    /**
     * A claim statement that writes (insert, take-over) as it runs with its waits for another transaction's row
     * locks bounded to about {@code lockWait}, in the statement's own round trip; unchanged by default. Only lock
     * waits count: a statement that is slow for any other reason (I/O, a synchronous standby, CPU, the network) is
     * never cut short and answered as locked, since the key is then free and the claim would refuse a request that
     * nobody else holds. {@code transactionGoesOn} tells whether the caller's statements follow in the same
     * transaction (transactional and joined mode): the bound must not reach them.
     */
    protected String boundedWrite(String statement, Duration lockWait, boolean transactionGoesOn) {
        return statement;
    }

    /** The claim's read as it runs with its lock waits bounded, as {@link #boundedWrite}; unchanged by default. */
    protected String boundedRead(String statement, Duration lockWait) {
        return statement;
    }

    /**
     * Whether a claim that commits on its own (leased mode) runs in a transaction of its own, committed after its
     * bounded statements rather than by them: where the bound is a setting that lasts to the end of a transaction
     * ({@code SET LOCAL}). {@code false} by default: statements that commit one by one keep fewer locks (an InnoDB
     * transaction would hold the shared lock of a duplicate insert until it ends).
     */
    protected boolean claimsInTransactionOfItsOwn() {
        return false;
    }

    /**
     * Whether {@code e} means the claim could not get its row in time: a lock timeout, a deadlock, or a serialization failure against a claim committed after
     * this transaction began. All leave the scope to another attempt.
     */
    protected abstract boolean isLockNotAvailable(SQLException e);

    protected abstract void setInstant(PreparedStatement statement, int index, @Nullable Instant instant)
            throws SQLException;

    protected abstract @Nullable Instant getInstant(ResultSet resultSet, String column) throws SQLException;

    /**
     * A query of the database's time now, in UTC, as the column {@code now}; {@code null} if this dialect has none
     * (then {@link DatabaseClock} cannot be used with it). Not abstract, so that a dialect of your own written
     * before it still links.
     */
    protected @Nullable String currentTime() {
        return null;
    }

    /** Reads a record for {@code find}. Parameters: owner, operation, key. */
    protected String select(String table) {
        return "SELECT " + RECORD_COLUMNS + " FROM " + table + SCOPE;
    }

    /**
     * Reads a record during a claim; it must see the latest committed version even inside an older
     * transaction. Parameters: owner, operation, key.
     */
    protected String selectForClaim(String table) {
        return select(table);
    }

    /**
     * Up to a number of records of one owner and operation, the newest first. Parameters: owner, operation, limit.
     */
    protected String recent(String table) {
        return "SELECT " + RECORD_COLUMNS + " FROM " + table + " WHERE owner = ? AND operation = ?"
                + " ORDER BY created_at DESC LIMIT ?";
    }

    /**
     * One pass over the table: per state its count, and over all of them the oldest PROCESSING creation
     * ({@code oldest_processing}), the records expired ({@code expired}) and the PROCESSING ones whose lease ran
     * out ({@code abandoned}). Parameters: now, now.
     */
    protected String statistics(String table) {
        return "SELECT " + exactly("state") + " AS state, count(*) AS records,"
                + " min(CASE WHEN state = 'PROCESSING' THEN created_at END) AS oldest_processing,"
                + " sum(CASE WHEN expires_at <= ? THEN 1 ELSE 0 END) AS expired,"
                // A queued asynchronous operation's lease ends as it is created: waiting, not abandoned.
                + " sum(CASE WHEN state = 'PROCESSING' AND lease_expires_at <= ? AND lease_expires_at > created_at"
                + " THEN 1 ELSE 0 END) AS abandoned"
                + " FROM " + table + " GROUP BY " + exactly("state");
    }

    /** A text column compared (and grouped) byte for byte, whatever its collation; as it is by default. */
    protected String exactly(String column) {
        return column;
    }

    /** Deletes a record. Parameters: owner, operation, key. */
    protected String delete(String table) {
        return "DELETE FROM " + table + SCOPE;
    }

    /**
     * Takes over a record still as it was read, and whose lease (if any) has still run out: a renewal that
     * committed since the read wins. Parameters: fingerprint, new attempt, failures, lease_expires_at,
     * created_at, updated_at, expires_at, owner, operation, key, read attempt, read state, read created_at, now.
     */
    protected String takeOver(String table) {
        return "UPDATE " + table + " SET fingerprint = ?, state = 'PROCESSING', attempt = ?, failures = ?,"
                + " lease_expires_at = ?, next_attempt_at = NULL, http_status = NULL, response_headers = NULL,"
                + " response_body = NULL, resource_id = NULL, created_at = ?, updated_at = ?, expires_at = ?" + SCOPE
                + " AND attempt = ? AND state = ? AND created_at = ?"
                + " AND (lease_expires_at IS NULL OR lease_expires_at <= ?)";
    }

    /**
     * Extends the lease of a running attempt, and the record's expiry with it where the lease would outlast it.
     * Parameters: lease_expires_at, updated_at, lease_expires_at again, owner, operation, key, attempt,
     * created_at.
     */
    protected String renew(String table) {
        return "UPDATE " + table + " SET lease_expires_at = ?, updated_at = ?, expires_at = GREATEST(expires_at, ?)"
                + SCOPE + " AND state = 'PROCESSING' AND attempt = ? AND created_at = ?";
    }

    /**
     * Stores the outcome of a running attempt. Parameters: state, http_status, response_headers,
     * response_body, resource_id, updated_at, expires_at, owner, operation, key, attempt, created_at.
     */
    protected String complete(String table) {
        return "UPDATE " + table + " SET state = ?, lease_expires_at = NULL, http_status = ?, response_headers = ?,"
                + " response_body = ?, resource_id = ?, updated_at = ?, expires_at = ?" + SCOPE
                + " AND state = 'PROCESSING' AND attempt = ? AND created_at = ?";
    }

    /**
     * {@link #complete} and a {@code COMMIT} after it, to send in one round trip; it fails, and so commits nothing,
     * unless it completed the one record. Parameters as {@link #complete}'s. {@code null} where the database or
     * its driver cannot run a commit within a statement ({@link #commitsWithStatement}).
     */
    protected @Nullable String completeWithCommit(String table) {
        return null;
    }

    /**
     * {@code insert} ({@link #insertFinished}) bounded by {@code lockWait}, followed by the commit in the same
     * statement, failing as {@link #completeWithCommit} does ({@link #isNothingCompleted}) when it inserted
     * nothing; only for a dialect whose {@link #completeWithCommit} is not {@code null}.
     */
    protected String insertFinishedWithCommit(String insert, Duration lockWait) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not commit with a statement");
    }

    /**
     * {@code insert} ({@link #insertFinished}) as a statement that fails, aborting its transaction, when it inserted
     * nothing ({@link #isNothingCompleted}), so that the transaction can no longer commit what the work wrote: for a
     * record held back to go with the commit but sent before it; only for a dialect whose
     * {@link #completeWithCommit} is not {@code null}.
     */
    protected String insertFinishedOrFail(String insert) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not commit with a statement");
    }

    /**
     * Whether {@code connection} can commit with a statement that {@link #completeWithCommit} gives, so that its
     * own {@link Connection#commit()} after it sends nothing and its transaction state stays right.
     */
    protected boolean commitsWithStatement(Connection connection) throws SQLException {
        return false;
    }

    /**
     * Whether {@code e} is {@link #completeWithCommit}'s refusal to commit a completion that found no record.
     */
    protected boolean isNothingCompleted(SQLException e) {
        return false;
    }

    /**
     * Marks a running attempt FAILED_RETRYABLE with one failure more. Parameters: next_attempt_at, updated_at,
     * expires_at, owner, operation, key, attempt, created_at.
     */
    protected String release(String table) {
        return "UPDATE " + table + " SET state = 'FAILED_RETRYABLE', lease_expires_at = NULL,"
                + " failures = failures + 1, next_attempt_at = ?, updated_at = ?, expires_at = ?" + SCOPE
                + " AND state = 'PROCESSING' AND attempt = ? AND created_at = ?";
    }

    @Override
    public String toString() {
        return name();
    }
}
