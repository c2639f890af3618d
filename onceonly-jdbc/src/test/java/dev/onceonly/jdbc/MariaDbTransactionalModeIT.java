package dev.onceonly.jdbc;

class MariaDbTransactionalModeIT extends JdbcTransactionalModeContract {

    MariaDbTransactionalModeIT() {
        super(TestDatabases.mariaDb(), new MariaDbDialect(), "CREATE TABLE IF NOT EXISTS onceonly_it_order"
                + " (id bigint AUTO_INCREMENT PRIMARY KEY, owner varchar(255) NOT NULL, sku bigint NOT NULL)",
                "SELECT CONNECTION_ID()", TestDatabases.MARIADB_WAITERS_BLOCKED_BY);
    }
}
