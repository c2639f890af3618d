package dev.onceonly.jdbc;

import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.tck.IdempotencyStoreContract;
import java.time.Clock;

/**
 * The contract on a pool whose connections come without auto-commit: the store must commit what it does on
 * connections of its own, or the pool's rollback on close would silently undo every claim.
 */
class PostgresWithoutAutoCommitIdempotencyStoreIT extends IdempotencyStoreContract {

    @Override
    protected IdempotencyStore createStore(Clock clock) {
        return JdbcIdempotencyStore.create(TestDatabases.postgresWithoutAutoCommit(), new PostgresDialect());
    }
}
