package dev.onceonly.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.TransactionRunner;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.tck.TransactionalModeContract;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The transactional-mode contract for {@link JdbcIdempotencyStore} in Spring-managed transactions, with the
 * business table {@code onceonly_it_order (id, owner, sku)} written through a {@link JdbcTemplate}.
 */
abstract class JdbcTransactionalModeContract extends TransactionalModeContract {

    private final DataSource dataSource;
    private final JdbcDialect dialect;
    private final JdbcTemplate jdbc;
    private final String sessionIdSql;
    private final String waitersBlockedBySql;
    private final String holdInsertsSql;

    /**
     * @param orderTableDdl creates {@code onceonly_it_order (id, owner, sku)} with a generated id, if absent
     * @param sessionIdSql returns the id of the connection's session
     * @param waitersBlockedBySql counts the transactions waiting for a lock of the session given as its parameter
     * @param holdInsertsSql run in a transaction, makes every insert into the record table wait until it ends, with
     *     a lock that is not a key's: one the database takes of its own, or another transaction's on a range
     */
    JdbcTransactionalModeContract(DataSource dataSource, JdbcDialect dialect, String orderTableDdl,
            String sessionIdSql, String waitersBlockedBySql, String holdInsertsSql) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.jdbc = new JdbcTemplate(dataSource);
        this.sessionIdSql = sessionIdSql;
        this.waitersBlockedBySql = waitersBlockedBySql;
        this.holdInsertsSql = holdInsertsSql;
        jdbc.execute(orderTableDdl);
    }

    // The example's storm test once saw two fresh keys refused as in progress on PostgreSQL under the shortest bound
    // (1 ms, no wait): their inserts had waited for a lock that was not their key's. MariaDB, whose bound was 0 with
    // less than a second left, refused a fresh key that met another transaction's gap lock at once.
    @Test
    void aFreshKeysClaimWaitsOutABriefLockThatIsNotTheKeys() throws Exception {
        IdempotencyEngine engine = IdempotencyEngine.builder(store()).waitTimeout(Duration.ZERO)
                .transactions(transactions()).build();
        IdempotencyScope scope = new IdempotencyScope("tx-" + UUID.randomUUID(), "issue-voucher",
                IdempotencyKey.of(UUID.randomUUID().toString()));
        Fingerprint fingerprint = Fingerprint.builder().method("POST").route("/vouchers")
                .rawBody("voucher".getBytes(StandardCharsets.UTF_8)).build();
        CountDownLatch locked = new CountDownLatch(1);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            // Held for 40 ms, well inside the 128 ms a claim waits at least. (Waiting for the claim to queue before
            // letting go would be exact, but MariaDB's lock-wait tables did not show that wait reliably.)
            Future<Void> holder = threads.submit(() -> {
                try (Connection connection = dataSource.getConnection(); Statement hold = connection.createStatement()) {
                    connection.setAutoCommit(false);
                    hold.execute(holdInsertsSql);
                    locked.countDown();
                    Thread.sleep(40);
                    connection.rollback();
                }
                return null;
            });
            assertThat(locked.await(20, TimeUnit.SECONDS)).isTrue();

            String outcome = engine.execute(scope, fingerprint, new TextCodec(), attempt -> "issued").value();

            holder.get(20, TimeUnit.SECONDS);
            assertThat(outcome).isEqualTo("issued");
        }
    }

    @Override
    protected IdempotencyStore store() {
        return JdbcIdempotencyStore.create(dataSource, dialect);
    }

    @Override
    protected TransactionRunner transactions() {
        return new SpringTransactionRunner(new TransactionTemplate(new DataSourceTransactionManager(dataSource)));
    }

    @Override
    protected long insertOrder(String owner, long sku) {
        return Objects.requireNonNull(jdbc.queryForObject(
                "INSERT INTO onceonly_it_order (owner, sku) VALUES (?, ?) RETURNING id", Long.class, owner, sku));
    }

    @Override
    protected void touchOrder(long id) {
        jdbc.update("UPDATE onceonly_it_order SET sku = sku + 1 WHERE id = ?", id);
    }

    @Override
    protected int committedOrders(String owner) {
        return Objects.requireNonNull(jdbc.queryForObject("SELECT count(*) FROM onceonly_it_order WHERE owner = ?",
                Integer.class, owner));
    }

    @Override
    protected long sessionId() {
        return Objects.requireNonNull(jdbc.queryForObject(sessionIdSql, Long.class));
    }

    @Override
    protected int lockWaitersBlockedBy(long session) {
        return Objects.requireNonNull(jdbc.queryForObject(waitersBlockedBySql, Integer.class, session));
    }
}
