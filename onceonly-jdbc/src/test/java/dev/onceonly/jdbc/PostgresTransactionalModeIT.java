package dev.onceonly.jdbc;

class PostgresTransactionalModeIT extends JdbcTransactionalModeContract {

    PostgresTransactionalModeIT() {
        super(TestDatabases.postgres(), new PostgresDialect(), "CREATE TABLE IF NOT EXISTS onceonly_it_order"
                + " (id bigserial PRIMARY KEY, owner varchar(255) NOT NULL, sku bigint NOT NULL)",
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'");
    }
}
