package dev.onceonly.kafka.outbox;

import java.util.List;

class MariaDbOutboxRelayIT extends OutboxRelayContract {

    @Override
    protected String url() {
        return OutboxTestDatabases.MARIADB_URL;
    }

    @Override
    protected List<String> createTable(String table) {
        return List.of("CREATE TABLE " + table + " (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
                + " aggregate_id BIGINT NOT NULL, event_type VARCHAR(64) CHARACTER SET ascii NOT NULL,"
                + " event_id VARCHAR(64) CHARACTER SET ascii NOT NULL, payload JSON NOT NULL,"
                + " created_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), published_at DATETIME(6) NULL,"
                + " INDEX " + table + "_head (aggregate_id, published_at, id),"
                + " INDEX " + table + "_unpublished (published_at, id))"
                + " ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin");
    }

    @Override
    protected String payloadParameter() {
        return "?";
    }

    @Override
    protected String sessionIdSql() {
        return "SELECT CONNECTION_ID()";
    }

    @Override
    protected String killSessionSql() {
        return "KILL ?";
    }

    @Override
    protected String sessionCountSql() {
        return "SELECT count(*) FROM information_schema.PROCESSLIST WHERE ID = ?";
    }

    /** Here one relay at a time, under the table's named lock. */
    @Override
    protected boolean relaysRunConcurrently() {
        return false;
    }
}
