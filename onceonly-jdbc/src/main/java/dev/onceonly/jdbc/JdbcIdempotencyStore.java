package dev.onceonly.jdbc;

import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.Retention;
import dev.onceonly.StoredResponse;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.Completion;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.InsertionRefusedException;
import dev.onceonly.spi.LeaseToken;
import dev.onceonly.spi.Purgeable;
import dev.onceonly.spi.RecordState;
import dev.onceonly.spi.RecordStatistics;
import dev.onceonly.spi.Release;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable {@link IdempotencyStore} on a SQL database, through plain JDBC.
 *
 * <p><b>Transactions.</b> When the caller has a Spring-managed transaction active on the same data source, every
 * statement runs in it, so a claim, the business writes and the completion commit or roll back together (the
 * engine's transactional mode). Otherwise each call borrows a connection and commits its statements itself, also
 * from a pool without auto-commit (leased mode); where a dialect says so (PostgreSQL, whose lock bound
 * {@code SET LOCAL} bounds nothing outside a transaction), a claim then runs as a short transaction of its own even
 * on an auto-commit pool, and so does the take-over of an expired record with its audit row in audit mode. Without
 * Spring on the class path the store always uses connections of its own. A claim in the wrong situation for its
 * mode fails with {@link IdempotencyConfigurationException} instead of silently losing the mode's guarantees.
 *
 * <p><b>How a claim works</b> (no "select, then insert"):
 * <ol>
 *   <li>Bound how long each claim statement waits for another transaction's row lock to the request's lock
 *       wait, but never under 128 ms (PostgreSQL {@code SET LOCAL lock_timeout}, which counts lock waits only, so
 *       that a slow database is not taken for a held key; MariaDB {@code innodb_lock_wait_timeout}, or {@code
 *       max_statement_time} below a second), for that statement alone and without a round trip of its own, so
 *       that a duplicate never holds a pooled connection much longer than that: the dialects say why the
 *       floor.</li>
 *   <li>Insert the record as PROCESSING, attempt 1, unless the scope exists ({@code ON CONFLICT DO NOTHING},
 *       {@code INSERT IGNORE}): the outcome is a row count, never a duplicate-key error.
 *       The primary key decides races; a row count of 1 means claimed. A concurrent claim by an uncommitted
 *       transaction makes this wait until that transaction ends.</li>
 *   <li>Otherwise read the latest committed record. If {@link IdempotencyRecord#isClaimableBy claimable}, take it over with an
 *       update that only matches the attempt and state just read (compare-and-set); the new attempt number is
 *       the fencing token. If the update matched nothing, someone else moved first: read again.</li>
 *   <li>Not claimable: report the record as a duplicate. A lock wait that ran out reports {@code Locked}.</li>
 * </ol>
 * {@code renew}, {@code complete} and {@code release} update only the row whose state is PROCESSING with the caller's
 * attempt and creation time, so a stale attempt cannot overwrite a newer one, not even of a record created anew
 * after a purge. Purge deletes small batches through the {@code expires_at} index, skipping locked rows.
 *
 * <p>Every row read is checked to belong to the scope asked for, by exact string equality, and to be a valid
 * record; otherwise the store fails closed with {@link IdempotencyStoreException}, as it does on database errors.
 * Its exceptions carry the database's error codes, never the database's message (which can quote row values).
 *
 * <p>Every value is bound as a parameter; the table name is validated once. Thread-safe.
 */
public final class JdbcIdempotencyStore implements IdempotencyStore {

    /** The table the bundled migrations create. */
    public static final String DEFAULT_TABLE = "onceonly_record";

    // Room left for the audit table's suffix within PostgreSQL's 63 characters.
    private static final Pattern TABLE_NAME = Pattern.compile("([A-Za-z_][A-Za-z0-9_]{0,62}\\.)?"
            + "[A-Za-z_][A-Za-z0-9_]{0,56}");
    /** Each lost compare-and-set means another attempt made progress; this many in a row means a fault. */
    private static final int MAX_CLAIM_ROUNDS = 50;

    /** Appended to the record table's name to name its audit table. */
    public static final String AUDIT_SUFFIX = "_audit";

    private static final Logger log = LoggerFactory.getLogger(JdbcIdempotencyStore.class);

    private final ConnectionSource connections;
    private final JdbcDialect dialect;
    private final String table;
    /** How long audit rows are kept, in audit mode; {@code null} when records are deleted whole. */
    private final @Nullable Duration auditRetention;
    private final String auditTable;
    private final String copyToAuditSql;
    private final String insertAuditSql;
    private final String lockSql;
    private final String purgeAuditSql;
    private final String deleteAuditSql;
    private final String insertIfAbsentSql;
    private final String selectSql;
    private final String selectForClaimSql;
    private final String takeOverSql;
    private final String completeSql;
    private final @Nullable String completeWithCommitSql;
    private final String renewSql;
    private final String releaseSql;
    private final String purgeSql;
    private final String deleteSql;
    private final String insertFinishedSql;
    private final String recentSql;
    private final String statisticsSql;

    private JdbcIdempotencyStore(ConnectionSource connections, JdbcDialect dialect, String table,
            @Nullable Duration auditRetention) {
        this.connections = connections;
        this.dialect = dialect;
        this.table = table;
        this.auditRetention = auditRetention;
        this.auditTable = table + AUDIT_SUFFIX;
        this.copyToAuditSql = dialect.copyToAudit(table, auditTable);
        this.insertAuditSql = dialect.insertAudit(auditTable);
        this.lockSql = dialect.lock(table);
        this.purgeAuditSql = dialect.purgeAudit(auditTable);
        this.deleteAuditSql = dialect.deleteAudit(auditTable);
        this.insertIfAbsentSql = dialect.insertIfAbsent(table);
        this.selectSql = dialect.select(table);
        this.selectForClaimSql = dialect.selectForClaim(table);
        this.takeOverSql = dialect.takeOver(table);
        this.completeSql = dialect.complete(table);
        this.completeWithCommitSql = dialect.completeWithCommit(table);
        this.renewSql = dialect.renew(table);
        this.releaseSql = dialect.release(table);
        this.purgeSql = auditRetention == null ? dialect.purgeExpired(table)
                : dialect.moveExpiredToAudit(table, auditTable);
        this.deleteSql = dialect.delete(table);
        this.insertFinishedSql = dialect.insertFinished(table);
        this.recentSql = dialect.recent(table);
        this.statisticsSql = dialect.statistics(table);
    }

    /**
     * A store on {@code dataSource} in table {@value #DEFAULT_TABLE}.
     */
    public static JdbcIdempotencyStore create(DataSource dataSource, JdbcDialect dialect) {
        return create(dataSource, dialect, DEFAULT_TABLE);
    }

    /**
     * A store on {@code dataSource} in {@code table} ({@code name} or {@code schema.name}), for teams that
     * create the table themselves from the bundled SQL under another name.
     *
     * @throws IdempotencyConfigurationException if {@code table} is not a plain SQL identifier
     */
    public static JdbcIdempotencyStore create(DataSource dataSource, JdbcDialect dialect, String table) {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(dialect, "dialect");
        if (!TABLE_NAME.matcher(table).matches()) {
            throw IdempotencyConfigurationException.of("table name", "'" + table + "' is not a plain SQL "
                    + "identifier (letters, digits and '_', optionally schema-qualified)");
        }
        return new JdbcIdempotencyStore(ConnectionSource.of(dataSource), dialect, table, null);
    }

    /**
     * This store in audit mode: a record that expires is not deleted whole, but its audit fields (scope,
     * fingerprint, state, attempt, failures, status, resource id, times) move to the audit table (the record
     * table's name with {@value #AUDIT_SUFFIX}; the bundled migrations create it) and are kept there for
     * {@code retention} after the purge that moved them, while its stored response, headers and body, is dropped.
     * A record that a new claim replaces once it expired is audited the same way first. Audit rows are purged by
     * {@link #auditTrail()}.
     *
     * @throws IdempotencyConfigurationException unless {@code retention} is positive and at most {@link
     *     Retention#MAX}
     */
    public JdbcIdempotencyStore keepingAudit(Duration retention) {
        Objects.requireNonNull(retention, "retention");
        if (retention.isNegative() || retention.isZero() || retention.compareTo(Retention.MAX) > 0) {
            throw IdempotencyConfigurationException.of("audit retention", "must be positive and at most "
                    + Retention.MAX + ", but is " + retention);
        }
        return new JdbcIdempotencyStore(connections, dialect, table, retention);
    }

    /** Whether expiring records leave audit rows ({@link #keepingAudit}). */
    @Override
    public boolean keepsAudit() {
        return auditRetention != null;
    }

    /**
     * Checks that the audit table exists, reading no row: for startup, as audit mode without it would fail every
     * purge and every claim that replaces an expired record.
     *
     * @throws IdempotencyConfigurationException if it does not
     * @throws IdempotencyStoreException if the database cannot be reached
     */
    public void requireAuditTable() {
        boolean present = withConnection("check the audit table", null, false, (connection, joined) -> {
            try (PreparedStatement probe = connection.prepareStatement("SELECT 1 FROM " + auditTable + " WHERE 1 = 0")) {
                probe.executeQuery().close();
                return true;
            } catch (SQLException e) {
                if (!dialect.isUndefinedTable(e)) {
                    throw e;
                }
                if (!joined && !connection.getAutoCommit()) {
                    connection.rollback();
                }
                return false;
            }
        });
        if (!present) {
            throw IdempotencyConfigurationException.of("audit table", "audit mode needs the table " + auditTable
                    + ", which cannot be read", "Apply the bundled migration V5 (onceonly.jdbc.schema-init=true "
                    + "does), or create it from " + dialect.migrationLocation());
        }
    }

    /**
     * The audit table's rows past their retention, for the background cleanup: in audit mode, and after it was
     * switched off, while rows it left remain. Needs the audit table.
     */
    public Purgeable auditTrail() {
        return new Purgeable() {
            @Override
            public String name() {
                return "audit";
            }

            @Override
            public int purge(Instant now, int limit) {
                return purgeBatch(purgeAuditSql, deleteAuditSql, 4, now, limit, null);
            }
        };
    }

    public JdbcDialect dialect() {
        return dialect;
    }

    @Override
    public ClaimResult claim(ClaimRequest request, Instant now) {
        Instant at = micros(now);
        boolean atomic = !request.transactional() && dialect.claimsInTransactionOfItsOwn();
        return withConnection("claim", request.scope(), atomic, (connection, joined) -> {
            requireMode(request, joined);
            boolean inTransaction = !connection.getAutoCommit();
            try {
                return claim(connection, request, joined, at);
            } catch (SQLException e) {
                if (!dialect.isLockNotAvailable(e)) {
                    throw e;
                }
                if (inTransaction && !joined) {
                    // The failed statement aborted the transaction (PostgreSQL): end it here, as committing it
                    // would fail. The caller's own transaction is the caller's to roll back.
                    connection.rollback();
                }
                return new ClaimResult.Locked();
            }
        });
    }

    /**
     * Transactional mode only works if the claim is part of the caller's transaction, and leased mode only if it
     * commits on its own; doing the other silently would lose the guarantees, so either mismatch fails.
     */
    private static void requireMode(ClaimRequest request, boolean joined) {
        if (request.transactional() && !joined) {
            throw IdempotencyConfigurationException.of("transactions", "transactional mode needs the claim to join "
                    + "the runner's transaction, but no Spring-managed transaction is active on the store's "
                    + "DataSource; use SpringTransactionRunner with a transaction manager for the same DataSource");
        }
        if (!request.transactional() && joined) {
            throw IdempotencyConfigurationException.of("transactions", "leased mode commits its claim at once, but "
                    + "a transaction is active on the store's DataSource and would hide the claim until it commits; "
                    + "call the engine outside the transaction, or use transactional mode");
        }
    }

    /** {@code joined}: whether the claim runs in the caller's transaction, which goes on after it. */
    private ClaimResult claim(Connection connection, ClaimRequest request, boolean joined, Instant now)
            throws SQLException {
        for (int round = 0; round < MAX_CLAIM_ROUNDS; round++) {
            if (insertIfAbsent(connection, request, joined, now)) {
                return new ClaimResult.Claimed(new LeaseToken(1, now), 0);
            }
            Optional<IdempotencyRecord> found = select(connection,
                    dialect.boundedRead(selectForClaimSql, request.lockWait()), request.scope());
            if (found.isEmpty()) {
                continue; // purged or rolled back since the insert: try the insert again
            }
            IdempotencyRecord existing = found.get();
            if (!request.mayClaim(existing, now)) {
                return new ClaimResult.Duplicate(existing);
            }
            // An expired record is replaced by a new one: its attempts and failures start anew, and its creation
            // time, part of the fencing token, tells its attempts from the old record's.
            boolean fresh = existing.isExpired(now);
            Instant createdAt = fresh ? now : existing.createdAt();
            int attempt = fresh ? 1 : existing.attempt() + 1;
            int failures = fresh ? 0 : existing.failures();
            if (fresh && auditRetention != null ? takeOverAndAudit(connection, request, existing, joined, now)
                    : takeOver(connection, request, existing, attempt, createdAt, failures, joined, now)) {
                return new ClaimResult.Claimed(new LeaseToken(attempt, createdAt), failures);
            }
        }
        throw new StoreFault("the claim lost " + MAX_CLAIM_ROUNDS + " races in a row");
    }

    /**
     * Takes over an expired record and writes its audit row, both or neither: on an auto-commit connection in a
     * transaction of their own, begun only after the claim's insert and read, so that it holds none of their shared
     * locks (two InnoDB transactions that each held one would both wait to upgrade it: a deadlock).
     */
    private boolean takeOverAndAudit(Connection connection, ClaimRequest request, IdempotencyRecord expired,
            boolean joined, Instant now) throws SQLException {
        SqlWork<Boolean> both = (same, ignored) -> {
            boolean taken = takeOver(same, request, expired, 1, now, 0, joined, now);
            if (taken) {
                auditReplaced(same, expired, now);
            }
            return taken;
        };
        return connection.getAutoCommit() ? inTransactionOfItsOwn(connection, both) : both.run(connection, false);
    }

    private boolean insertIfAbsent(Connection connection, ClaimRequest request, boolean joined, Instant now)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(
                dialect.boundedWrite(insertIfAbsentSql, request.lockWait(), joined))) {
            int i = bindScope(statement, 1, request.scope());
            statement.setBytes(i++, request.fingerprint().digest());
            dialect.setInstant(statement, i++, micros(request.leaseExpiresAt()));
            dialect.setInstant(statement, i++, now);
            dialect.setInstant(statement, i++, now);
            dialect.setInstant(statement, i, micros(request.expiresAt()));
            return changedRows(statement) == 1;
        }
    }

    /**
     * The rows a bounded statement changed: a dialect may send its bound as statements of their own in the same
     * round trip ({@code SET LOCAL}), which change none.
     */
    private static int changedRows(PreparedStatement statement) throws SQLException {
        int changed = 0;
        boolean resultSet = statement.execute();
        while (true) {
            if (!resultSet) {
                int count = statement.getUpdateCount();
                if (count == -1) {
                    return changed;
                }
                changed += Math.max(0, count);
            }
            resultSet = statement.getMoreResults();
        }
    }

    private boolean takeOver(Connection connection, ClaimRequest request, IdempotencyRecord existing, int attempt,
            Instant createdAt, int failures, boolean joined, Instant now) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(
                dialect.boundedWrite(takeOverSql, request.lockWait(), joined))) {
            int i = 1;
            statement.setBytes(i++, request.fingerprint().digest());
            statement.setInt(i++, attempt);
            statement.setInt(i++, failures);
            dialect.setInstant(statement, i++, micros(request.leaseExpiresAt()));
            dialect.setInstant(statement, i++, createdAt);
            dialect.setInstant(statement, i++, now);
            dialect.setInstant(statement, i++, micros(request.expiresAt()));
            i = bindScope(statement, i, request.scope());
            statement.setInt(i++, existing.attempt());
            statement.setString(i++, existing.state().name());
            dialect.setInstant(statement, i++, existing.createdAt());
            dialect.setInstant(statement, i, now);
            return changedRows(statement) == 1;
        }
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyScope scope) {
        return withConnection("find", scope, false, (connection, joined) -> select(connection, selectSql, scope));
    }

    private Optional<IdempotencyRecord> select(Connection connection, String sql, IdempotencyScope scope)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            return select(statement, scope);
        }
    }

    private Optional<IdempotencyRecord> select(PreparedStatement statement, IdempotencyScope scope)
            throws SQLException {
        bindScope(statement, 1, scope);
        try (ResultSet row = statement.executeQuery()) {
            return row.next() ? Optional.of(RecordRows.read(dialect, scope, row)) : Optional.empty();
        }
    }

    /**
     * In a transaction that {@link SpringTransactionRunner} began on a data source transaction manager, on a
     * database that can ({@link JdbcDialect#completeWithCommit}), the completion is held back and sent with the
     * commit, in one round trip: it then answers {@code true} at once, and a commit that finds no record to complete
     * fails and commits nothing. Any other statement of a store in that transaction sends it first; it goes
     * without the commit when something registered after it may write at commit ({@link DeferredCompletion}).
     */
    @Override
    public boolean complete(IdempotencyScope scope, LeaseToken token, Completion completion, Instant now) {
        return withConnection("complete", scope, false, (connection, joined) -> {
            if (joined && completeWithCommitSql != null && dialect.commitsWithStatement(connection)
                    && connections.holdUntilCommit(
                            (held, withCommit) -> sendCompletion(held, withCommit, scope, token, completion, now),
                            e -> storeException("complete", scope, e))) {
                return true;
            }
            try (PreparedStatement statement = connection.prepareStatement(completeSql)) {
                bindCompletion(statement, scope, token, completion, now);
                return statement.executeUpdate() == 1;
            }
        });
    }

    /** A held-back completion: with the commit, or before another statement of the store. */
    private void sendCompletion(Connection connection, boolean withCommit, IdempotencyScope scope, LeaseToken token,
            Completion completion, Instant now) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(withCommit
                ? Objects.requireNonNull(completeWithCommitSql) : completeSql)) {
            bindCompletion(statement, scope, token, completion, now);
            if (withCommit) {
                statement.execute();
            } else if (statement.executeUpdate() != 1) {
                throw new StoreFault("the completion found no claim of this transaction to complete");
            }
        } catch (SQLException e) {
            if (withCommit && dialect.isNothingCompleted(e)) {
                throw new StoreFault("the completion found no claim of this transaction to complete; nothing was "
                        + "committed");
            }
            throw e;
        }
    }

    private void bindCompletion(PreparedStatement statement, IdempotencyScope scope, LeaseToken token,
            Completion completion, Instant now) throws SQLException {
        statement.setString(1, completion.state().name());
        int i = bindResponse(statement, 2, completion.response());
        dialect.setInstant(statement, i++, micros(now));
        dialect.setInstant(statement, i++, micros(completion.expiresAt()));
        i = bindScope(statement, i, scope);
        bindToken(statement, i, token);
    }

    /** Always, in the caller's transaction; the unique scope decides, waiting at most the request's lock wait. */
    @Override
    public boolean insertsFinished() {
        return true;
    }

    /**
     * Where the completion would go with the commit ({@link #complete}), the record does too: the work's
     * transaction then sends two batches, its own statements and the record with the commit. Should the record
     * meet another, or wait for one too long, the commit fails with {@link InsertionRefusedException} (or the call
     * of the store that sends the record before the commit does, and the transaction can no longer commit).
     */
    @Override
    public Insertion insertFinished(ClaimRequest request, Completion completion, Instant now) {
        Instant at = micros(now);
        return withConnection("insert-finished", request.scope(), false, (connection, joined) -> {
            requireMode(request, joined);
            if (joined && completeWithCommitSql != null && dialect.commitsWithStatement(connection)
                    && connections.holdUntilCommit(
                            (held, withCommit) -> sendInsertion(held, withCommit, request, completion, at),
                            e -> storeException("insert-finished", request.scope(), e))) {
                return Insertion.INSERTED;
            }
            try (PreparedStatement statement = connection.prepareStatement(
                    dialect.boundedWrite(insertFinishedSql, request.lockWait(), true))) {
                bindInsertion(statement, request, completion, at);
                return changedRows(statement) == 1 ? Insertion.INSERTED : Insertion.EXISTS;
            } catch (SQLException e) {
                if (!dialect.isLockNotAvailable(e)) {
                    throw e;
                }
                // The caller's transaction, which the failed statement may have aborted, is the caller's to end.
                return Insertion.LOCKED;
            }
        });
    }

    /** A held-back record: with the commit, or before another statement of the store. */
    private void sendInsertion(Connection connection, boolean withCommit, ClaimRequest request,
            Completion completion, Instant at) throws SQLException {
        // Without the commit, the statement must still fail its transaction when it inserts nothing: whoever catches
        // the refusal, the work's writes must not commit without a record.
        try (PreparedStatement statement = connection.prepareStatement(withCommit
                ? dialect.insertFinishedWithCommit(insertFinishedSql, request.lockWait())
                : dialect.boundedWrite(dialect.insertFinishedOrFail(insertFinishedSql), request.lockWait(), true))) {
            bindInsertion(statement, request, completion, at);
            statement.execute();
        } catch (SQLException e) {
            if (dialect.isNothingCompleted(e)) {
                throw new InsertionRefusedException(Insertion.EXISTS, "the scope has a record; nothing committed");
            }
            if (dialect.isLockNotAvailable(e)) {
                throw new InsertionRefusedException(Insertion.LOCKED, "another transaction held the scope's record "
                        + "longer than the lock wait; nothing committed");
            }
            throw e;
        }
    }

    private void bindInsertion(PreparedStatement statement, ClaimRequest request, Completion completion,
            Instant at) throws SQLException {
        int i = bindScope(statement, 1, request.scope());
        statement.setBytes(i++, request.fingerprint().digest());
        statement.setString(i++, completion.state().name());
        i = bindResponse(statement, i, completion.response());
        dialect.setInstant(statement, i++, at);
        dialect.setInstant(statement, i++, at);
        dialect.setInstant(statement, i, micros(completion.expiresAt()));
    }

    /** Binds http_status, response_headers, response_body and resource_id; returns the next index. */
    private static int bindResponse(PreparedStatement statement, int index, StoredResponse response)
            throws SQLException {
        int i = index;
        if (response.hasStatus()) {
            statement.setInt(i++, response.status());
        } else {
            statement.setNull(i++, Types.SMALLINT);
        }
        setNullableString(statement, i++, HeaderLines.encode(response.headers()));
        statement.setBytes(i++, response.body());
        setNullableString(statement, i++, response.resourceId());
        return i;
    }

    @Override
    public boolean renew(IdempotencyScope scope, LeaseToken token, Instant leaseExpiresAt, Instant now) {
        return withConnection("renew", scope, false, (connection, joined) -> {
            try (PreparedStatement statement = connection.prepareStatement(renewSql)) {
                dialect.setInstant(statement, 1, micros(leaseExpiresAt));
                dialect.setInstant(statement, 2, micros(now));
                dialect.setInstant(statement, 3, micros(leaseExpiresAt));
                bindToken(statement, bindScope(statement, 4, scope), token);
                return statement.executeUpdate() == 1;
            }
        });
    }

    @Override
    public boolean release(IdempotencyScope scope, LeaseToken token, Release release, Instant now) {
        return withConnection("release", scope, false, (connection, joined) -> {
            try (PreparedStatement statement = connection.prepareStatement(releaseSql)) {
                dialect.setInstant(statement, 1, micros(release.nextAttemptAt()));
                dialect.setInstant(statement, 2, micros(now));
                dialect.setInstant(statement, 3, micros(release.expiresAt()));
                bindToken(statement, bindScope(statement, 4, scope), token);
                return statement.executeUpdate() == 1;
            }
        });
    }

    /** In audit mode, moves each expired record's audit fields to the audit table as it deletes the record. */
    @Override
    public int purgeExpired(Instant now, int limit) {
        return purgeBatch(purgeSql, deleteSql, 3, now, limit, auditRetention == null ? null : auditUntil(now));
    }

    private Instant auditUntil(Instant now) {
        return micros(now.plus(Objects.requireNonNull(auditRetention)));
    }

    /**
     * Audits the expired record a claim has just replaced, from the values it read: the take-over matched exactly
     * that version, so no later change of the row can slip into its audit row.
     */
    private void auditReplaced(Connection connection, IdempotencyRecord replaced, Instant now) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(insertAuditSql)) {
            int i = bindScope(statement, 1, replaced.scope());
            dialect.setInstant(statement, i++, replaced.createdAt());
            statement.setBytes(i++, replaced.fingerprint().digest());
            statement.setString(i++, replaced.state().name());
            statement.setInt(i++, replaced.attempt());
            statement.setInt(i++, replaced.failures());
            StoredResponse response = replaced.response();
            if (response != null && response.hasStatus()) {
                statement.setInt(i++, response.status());
            } else {
                statement.setNull(i++, Types.SMALLINT);
            }
            setNullableString(statement, i++, response == null ? null : response.resourceId());
            dialect.setInstant(statement, i++, replaced.updatedAt());
            dialect.setInstant(statement, i++, replaced.expiresAt());
            dialect.setInstant(statement, i, auditUntil(now));
            statement.executeUpdate();
        }
    }

    /**
     * One purge of a table: a statement that deletes (and, given {@code auditUntil}, audits) the due rows; or a
     * query that locks their keys (owner, operation, key, and for audit rows created_at: {@code keyColumns} of them),
     * which are then audited and deleted by key.
     */
    private int purgeBatch(String purge, String deleteByKey, int keyColumns, Instant now, int limit,
            @Nullable Instant auditUntil) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be positive, but is " + limit);
        }
        // A transaction, because a purge in two steps must hold the rows it selected until it deleted them.
        return withConnection("purge", null, true, (connection, joined) -> {
            try (PreparedStatement statement = connection.prepareStatement(purge)) {
                dialect.setInstant(statement, 1, micros(now));
                statement.setInt(2, limit);
                if (dialect.purgesInOneStatement() && auditUntil != null) {
                    dialect.setInstant(statement, 3, auditUntil);
                    try (ResultSet deleted = statement.executeQuery()) {
                        return deleted.next() ? deleted.getInt(1) : 0;
                    }
                }
                if (!statement.execute()) {
                    return statement.getUpdateCount();
                }
                try (ResultSet locked = statement.getResultSet()) {
                    return deleteLocked(connection, locked, deleteByKey, keyColumns, auditUntil);
                }
            }
        });
    }

    /** In audit mode the record's audit fields are kept first, in the same transaction. */
    @Override
    public boolean evict(IdempotencyScope scope, Instant now) {
        return withConnection("evict", scope, auditRetention != null, (connection, joined) -> {
            if (auditRetention != null) {
                // Locked first, so that the row copied is the row deleted (READ COMMITTED reads without locks).
                try (PreparedStatement lock = connection.prepareStatement(lockSql)) {
                    bindScope(lock, 1, scope);
                    lock.executeQuery().close();
                }
                try (PreparedStatement audit = connection.prepareStatement(copyToAuditSql)) {
                    dialect.setInstant(audit, 1, auditUntil(now));
                    bindScope(audit, 2, scope);
                    audit.executeUpdate();
                }
            }
            try (PreparedStatement statement = connection.prepareStatement(deleteSql)) {
                bindScope(statement, 1, scope);
                return statement.executeUpdate() == 1;
            }
        });
    }

    @Override
    public List<IdempotencyRecord> recent(String owner, String operation, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be positive, but is " + limit);
        }
        return withConnection("list", null, false, (connection, joined) -> {
            try (PreparedStatement statement = connection.prepareStatement(recentSql)) {
                statement.setString(1, owner);
                statement.setString(2, operation);
                statement.setInt(3, limit);
                List<IdempotencyRecord> records = new ArrayList<>();
                try (ResultSet row = statement.executeQuery()) {
                    while (row.next()) {
                        records.add(RecordRows.read(dialect, new IdempotencyScope(owner, operation,
                                RecordRows.key(row)), row));
                    }
                }
                return records;
            }
        });
    }

    @Override
    public RecordStatistics statistics(Instant now) {
        Instant at = micros(now);
        return withConnection("count", null, false, (connection, joined) -> {
            try (PreparedStatement statement = connection.prepareStatement(statisticsSql)) {
                dialect.setInstant(statement, 1, at);
                dialect.setInstant(statement, 2, at);
                Map<RecordState, Long> byState = new EnumMap<>(RecordState.class);
                Instant oldestProcessing = null;
                long expired = 0;
                long abandoned = 0;
                try (ResultSet row = statement.executeQuery()) {
                    while (row.next()) {
                        RecordState state = RecordRows.knownState(row);
                        if (state == null) {
                            // Counted nowhere rather than failing every scrape; reading the record fails closed.
                            log.warn("{} records in {} have a state OnceOnly does not know", row.getLong("records"),
                                    table);
                            continue;
                        }
                        byState.put(state, row.getLong("records"));
                        Instant oldest = dialect.getInstant(row, "oldest_processing");
                        oldestProcessing = oldest != null ? oldest : oldestProcessing;
                        expired += row.getLong("expired");
                        abandoned += row.getLong("abandoned");
                    }
                }
                return new RecordStatistics(byState, oldestProcessing, expired, abandoned);
            }
        });
    }

    /**
     * The second step of a purge whose first step selected and locked the expired rows' scopes, in one batch.
     * Rows this transaction locks cannot go away, so each selected row is one deleted row (drivers that send
     * the batch in bulk do not report counts per row).
     */
    private int deleteLocked(Connection connection, ResultSet locked, String deleteByKey, int keyColumns,
            @Nullable Instant auditUntil) throws SQLException {
        int deleted = 0;
        try (PreparedStatement delete = connection.prepareStatement(deleteByKey);
                PreparedStatement audit = auditUntil == null ? null : connection.prepareStatement(copyToAuditSql)) {
            while (locked.next()) {
                for (int column = 1; column <= 3; column++) {
                    delete.setString(column, locked.getString(column));
                }
                if (keyColumns == 4) {
                    dialect.setInstant(delete, 4, dialect.getInstant(locked, "created_at"));
                }
                delete.addBatch();
                if (audit != null) {
                    // One by one: MariaDB cannot run an INSERT … SELECT as a bulk batch.
                    dialect.setInstant(audit, 1, auditUntil);
                    for (int column = 1; column <= 3; column++) {
                        audit.setString(column + 1, locked.getString(column));
                    }
                    audit.executeUpdate();
                }
                deleted++;
            }
            if (deleted > 0) {
                delete.executeBatch();
            }
        }
        return deleted;
    }

    private void bindToken(PreparedStatement statement, int index, LeaseToken token) throws SQLException {
        statement.setInt(index, token.attempt());
        dialect.setInstant(statement, index + 1, micros(token.createdAt()));
    }

    /** Both databases keep microseconds; binding exactly that makes stored and compared times equal. */
    private static Instant micros(Instant instant) {
        return instant.truncatedTo(ChronoUnit.MICROS);
    }

    private static int bindScope(PreparedStatement statement, int index, IdempotencyScope scope)
            throws SQLException {
        statement.setString(index, scope.owner());
        statement.setString(index + 1, scope.operation());
        statement.setString(index + 2, scope.key().value());
        return index + 3;
    }

    private static void setNullableString(PreparedStatement statement, int index, @Nullable String value)
            throws SQLException {
        if (value == null) {
            statement.setNull(index, Types.VARCHAR);
        } else {
            statement.setString(index, value);
        }
    }

    /**
     * Runs {@code work} on the caller's transaction's connection, or on one of the store's own. Work on an own
     * connection is committed here even if the pool hands out connections without auto-commit; {@code atomic}
     * work gets a transaction even from a pool with auto-commit.
     *
     * <p>Database errors become {@link IdempotencyStoreException}s that carry only the error's codes, also in their
     * cause ({@link SqlFailure#toException}): a database message can quote row values, and a logged stack trace
     * prints every cause's message.
     */
    private <T> T withConnection(String operation, @Nullable IdempotencyScope scope, boolean atomic,
            SqlWork<T> work) {
        try {
            ConnectionSource.Acquired acquired = connections.acquire();
            Connection connection = acquired.connection();
            try {
                boolean joined = acquired.joined();
                if (joined) {
                    connections.sendHeld();
                }
                if (!joined && atomic && connection.getAutoCommit()) {
                    return inTransactionOfItsOwn(connection, work);
                }
                return runAndCommit(connection, !joined && !connection.getAutoCommit(), work, joined);
            } finally {
                connections.release(connection);
            }
        } catch (SQLException e) {
            throw storeException(operation, scope, e);
        }
    }

    private IdempotencyStoreException storeException(String operation, @Nullable IdempotencyScope scope,
            SQLException e) {
        if (e instanceof StoreFault fault) {
            return new IdempotencyStoreException(failureMessage(operation, scope, String.valueOf(fault.getMessage())));
        }
        SqlFailure failure = SqlFailure.of(e);
        return new IdempotencyStoreException(failureMessage(operation, scope, failure.toString()),
                failure.toException());
    }

    /** Runs {@code work} on an auto-commit connection in a transaction begun, and ended, here. */
    private static <T> T inTransactionOfItsOwn(Connection connection, SqlWork<T> work) throws SQLException {
        connection.setAutoCommit(false);
        try {
            return runAndCommit(connection, true, work, false);
        } finally {
            connection.setAutoCommit(true);
        }
    }

    private static <T> T runAndCommit(Connection connection, boolean commitHere, SqlWork<T> work, boolean joined)
            throws SQLException {
        try {
            T result = work.run(connection, joined);
            if (commitHere) {
                connection.commit();
            }
            return result;
        } catch (SQLException | RuntimeException e) {
            if (commitHere) {
                rollbackQuietly(connection);
            }
            throw e;
        }
    }

    private String failureMessage(String operation, @Nullable IdempotencyScope scope, String reason) {
        return "Idempotency store (" + dialect.name() + ") failed to " + operation
                + (scope == null ? "" : " operation '" + scope.operation() + "' key " + scope.key()) + ": " + reason;
    }

    /** The first failure is the one to report; the pool discards a connection whose rollback failed too. */
    private static void rollbackQuietly(Connection connection) {
        try {
            connection.rollback();
        } catch (SQLException ignored) {
            // Reported by the first failure; this one's message could quote data as well.
        }
    }

    @FunctionalInterface
    private interface SqlWork<T> {
        /** @param joined whether the connection belongs to the caller's transaction */
        T run(Connection connection, boolean joined) throws SQLException;
    }

    @Override
    public String toString() {
        return "JdbcIdempotencyStore[" + dialect.name() + "]";
    }
}
