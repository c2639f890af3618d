package dev.onceonly.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.RequestInProgressException;
import dev.onceonly.StoredResponse;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.Completion;
import dev.onceonly.spi.LeaseToken;
import dev.onceonly.spi.RecordState;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A record that another transaction holds locked: a claim that may not wait, and a purge, answer at once instead
 * of blocking a pooled connection on it. The holder is a plain JDBC transaction that locks the record's row until
 * the test lets it go, after the store has answered.
 */
@Timeout(120)
interface HeldRecordTests extends JdbcStoreFixture {

    /** Long past, so that the purge meets these records before any other test's. */
    Instant NOW = Instant.parse("2000-01-01T00:00:00Z");
    Duration LEASE = Duration.ofSeconds(30);
    Duration RETENTION = Duration.ofHours(1);

    /** Returns the id of the connection's session, which {@link #waitersBlockedBySql()} takes. */
    String sessionIdSql();

    /** Counts the sessions waiting for a lock that the session with the id given as its parameter holds. */
    String waitersBlockedBySql();

    // issue 8: MariaDB's lock wait was at least a whole second, so a claim without wait blocked a connection. A
    // claim now queues for the holder's lock for the dialects' shortest bound (128 ms), not for as long as it holds;
    // LockBoundTest pins that bound, which no timing here could.
    @Test
    default void claimWithoutLockWaitOfAHeldRecordAnswersInProgressWhileTheHolderKeepsItsLock() throws Exception {
        IdempotencyScope scope = newHeldRecordScope();
        jdbcStore().claim(request(scope, NOW), NOW);
        try (Connection holder = lockRow(scope); ExecutorService threads = Executors.newSingleThreadExecutor()) {
            Future<ClaimResult> claim = threads.submit(() -> jdbcStore().claim(request(scope, NOW), NOW));

            // Answered while the holder still holds the row, which it keeps until it commits below.
            assertInProgress(claim.get(20, TimeUnit.SECONDS));
            assertThat(isLocked(scope)).isTrue();
            holder.commit();
        }
        assertThat(jdbcStore().find(scope).orElseThrow().state()).isEqualTo(RecordState.PROCESSING);
    }

    // issue 8: on a pool without auto-commit, the claim's aborted transaction was committed, not rolled back.
    @Test
    default void leasedDuplicateOfAHeldRecordIsToldInProgressWithoutRunning() throws Exception {
        IdempotencyScope scope = newHeldRecordScope();
        AtomicBoolean ran = new AtomicBoolean();
        IdempotencyEngine engine = IdempotencyEngine.builder(jdbcStore()).build();
        try (Connection holder = dataSource().getConnection()) {
            holder.setAutoCommit(false);
            // An uncommitted claim of the scope, as a transactional-mode attempt on another instance holds it.
            insertProcessing(holder, scope);

            assertThatThrownBy(() -> engine.execute(scope, fingerprint(), new TextCodec(), attempt -> {
                ran.set(true);
                return "ran";
            })).isInstanceOf(RequestInProgressException.class);

            holder.rollback();
        }
        assertThat(ran).isFalse();
    }

    // issue 8: MariaDB's purge was a DELETE, which waits for every locked row in its way.
    @Test
    default void purgeSkipsAHeldRecordAndDeletesAtMostItsLimit() throws Exception {
        List<IdempotencyScope> expired = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            IdempotencyScope scope = newHeldRecordScope();
            LeaseToken token = ((ClaimResult.Claimed) jdbcStore().claim(request(scope, NOW), NOW)).token();
            // The held record expires first, so that a purge that does not skip it meets it.
            jdbcStore().complete(scope, token, new Completion(RecordState.SUCCEEDED,
                    StoredResponse.of(201, new byte[0]), NOW.plus(RETENTION).plusSeconds(i)), NOW);
            expired.add(scope);
        }
        Instant later = NOW.plus(LEASE).plus(RETENTION).plusSeconds(1);
        IdempotencyScope held = expired.getFirst();
        try (Connection holder = lockRow(held); ExecutorService threads = Executors.newSingleThreadExecutor()) {
            long session = sessionId(holder);
            Future<Integer> purge = threads.submit(() -> jdbcStore().purgeExpired(later, 2));

            await().atMost(Duration.ofSeconds(20)).until(() -> purge.isDone() || waitersBlockedBy(session) > 0);

            assertThat(purge).isDone();
            assertThat(purge.get()).isBetween(1, 2);
            assertThat(jdbcStore().find(held)).isPresent();
            assertThat(isLocked(held)).isTrue();
            holder.commit();
        }
        while (jdbcStore().purgeExpired(later, 1_000) > 0) {
            // until everything due is gone
        }
        assertThat(expired).allSatisfy(scope -> assertThat(jdbcStore().find(scope)).isEmpty());
    }

    /** Opens a transaction that locks the record's row until the returned connection commits or closes. */
    private Connection lockRow(IdempotencyScope scope) throws SQLException {
        Connection holder = dataSource().getConnection();
        holder.setAutoCommit(false);
        assertThat(selectForUpdate(holder, scope, "")).isTrue();
        return holder;
    }

    /** Whether another transaction holds the record's row lock, asked without waiting for it. */
    private boolean isLocked(IdempotencyScope scope) throws SQLException {
        try (Connection connection = dataSource().getConnection()) {
            connection.setAutoCommit(false);
            try {
                selectForUpdate(connection, scope, " NOWAIT");
                return false;
            } catch (SQLException e) {
                if (dialect().isLockNotAvailable(e)) {
                    return true;
                }
                throw e;
            } finally {
                connection.rollback();
            }
        }
    }

    private static boolean selectForUpdate(Connection connection, IdempotencyScope scope, String wait)
            throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement("SELECT attempt FROM "
                + JdbcIdempotencyStore.DEFAULT_TABLE + " WHERE owner = ? AND operation = ? AND idem_key = ?"
                + " FOR UPDATE" + wait)) {
            lock.setString(1, scope.owner());
            lock.setString(2, scope.operation());
            lock.setString(3, scope.key().value());
            try (ResultSet row = lock.executeQuery()) {
                return row.next();
            }
        }
    }

    private void insertProcessing(Connection holder, IdempotencyScope scope) throws SQLException {
        JdbcDialect dialect = dialect();
        try (PreparedStatement insert = holder.prepareStatement(
                dialect.insertIfAbsent(JdbcIdempotencyStore.DEFAULT_TABLE))) {
            insert.setString(1, scope.owner());
            insert.setString(2, scope.operation());
            insert.setString(3, scope.key().value());
            insert.setBytes(4, fingerprint().digest());
            Instant now = Instant.now();
            dialect.setInstant(insert, 5, now.plus(LEASE));
            dialect.setInstant(insert, 6, now);
            dialect.setInstant(insert, 7, now);
            dialect.setInstant(insert, 8, now.plus(LEASE).plus(RETENTION));
            assertThat(insert.executeUpdate()).isEqualTo(1);
        }
    }

    private long sessionId(Connection holder) throws SQLException {
        try (var statement = holder.createStatement(); ResultSet id = statement.executeQuery(sessionIdSql())) {
            id.next();
            return id.getLong(1);
        }
    }

    private int waitersBlockedBy(long session) throws SQLException {
        try (Connection connection = dataSource().getConnection();
                PreparedStatement statement = connection.prepareStatement(waitersBlockedBySql())) {
            statement.setLong(1, session);
            try (ResultSet count = statement.executeQuery()) {
                count.next();
                int waiters = count.getInt(1);
                if (!connection.getAutoCommit()) {
                    connection.commit();
                }
                return waiters;
            }
        }
    }

    /** Duplicate of the running attempt, or Locked: either way the scope is in progress. */
    private static void assertInProgress(ClaimResult result) {
        if (result instanceof ClaimResult.Duplicate duplicate) {
            assertThat(duplicate.record().state()).isEqualTo(RecordState.PROCESSING);
        } else {
            assertThat(result).isInstanceOf(ClaimResult.Locked.class);
        }
    }

    private static IdempotencyScope newHeldRecordScope() {
        return new IdempotencyScope("held-" + UUID.randomUUID(), "create-order",
                IdempotencyKey.of(UUID.randomUUID().toString()));
    }

    private static ClaimRequest request(IdempotencyScope scope, Instant now) {
        return new ClaimRequest(scope, fingerprint(), now.plus(LEASE), now.plus(LEASE).plus(RETENTION),
                Duration.ZERO, false);
    }

    private static Fingerprint fingerprint() {
        return Fingerprint.builder().method("POST").route("/orders").rawBody("held".getBytes(StandardCharsets.UTF_8))
                .build();
    }
}
