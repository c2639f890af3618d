package dev.onceonly.jdbc;

class MariaDbTransactionalModeIT extends JdbcTransactionalModeContract {

    MariaDbTransactionalModeIT() {
        super(TestDatabases.mariaDb(), new MariaDbDialect(), "CREATE TABLE IF NOT EXISTS onceonly_it_order"
                + " (id bigint AUTO_INCREMENT PRIMARY KEY, owner varchar(255) NOT NULL, sku bigint NOT NULL)",
                "SELECT CONNECTION_ID()", TestDatabases.MARIADB_WAITERS_BLOCKED_BY,
                // Next-key locks on every record and the gap after the last: what a duplicate's insert or locking
                // read holds on one key and the gap before it, on the whole table.
                "SELECT count(*) FROM onceonly_record LOCK IN SHARE MODE");
    }
}
