package dev.onceonly.jdbc;

import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.tck.IdempotencyStoreContract;
import java.time.Clock;
import javax.sql.DataSource;

/**
 * The contract on a pool whose connections come without auto-commit: the store must commit what it does on
 * connections of its own, or the pool's rollback on close would silently undo every claim; and a claim whose
 * statement gave up on a lock must roll its aborted transaction back, as committing it fails.
 */
class PostgresWithoutAutoCommitIdempotencyStoreIT extends IdempotencyStoreContract implements PostgresHeldRecordTests,
        PostgresSlowDatabaseTests {

    @Override
    protected IdempotencyStore createStore(Clock clock) {
        return jdbcStore();
    }

    @Override
    public DataSource dataSource() {
        return TestDatabases.postgresWithoutAutoCommit();
    }

    @Override
    public JdbcDialect dialect() {
        return new PostgresDialect();
    }
}
