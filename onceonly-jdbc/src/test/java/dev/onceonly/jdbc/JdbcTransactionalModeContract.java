package dev.onceonly.jdbc;

import dev.onceonly.TransactionRunner;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.tck.TransactionalModeContract;
import java.util.Objects;
import javax.sql.DataSource;
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

    /**
     * @param orderTableDdl creates {@code onceonly_it_order (id, owner, sku)} with a generated id, if absent
     * @param sessionIdSql returns the id of the connection's session
     * @param waitersBlockedBySql counts the transactions waiting for a lock of the session given as its parameter
     */
    JdbcTransactionalModeContract(DataSource dataSource, JdbcDialect dialect, String orderTableDdl,
            String sessionIdSql, String waitersBlockedBySql) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.jdbc = new JdbcTemplate(dataSource);
        this.sessionIdSql = sessionIdSql;
        this.waitersBlockedBySql = waitersBlockedBySql;
        jdbc.execute(orderTableDdl);
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
