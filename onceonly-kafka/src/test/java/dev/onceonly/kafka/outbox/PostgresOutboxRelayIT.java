package dev.onceonly.kafka.outbox;

import java.util.List;

class PostgresOutboxRelayIT extends OutboxRelayContract {

    @Override
    protected String url() {
        return OutboxTestDatabases.POSTGRES_URL;
    }

    @Override
    protected List<String> createTable(String table) {
        return List.of("CREATE TABLE " + table + " (id bigserial PRIMARY KEY, aggregate_id bigint NOT NULL,"
                        + " event_type varchar(64) NOT NULL, event_id varchar(64) NOT NULL, payload jsonb NOT NULL,"
                        + " created_at timestamptz NOT NULL DEFAULT now(), published_at timestamptz)",
                "CREATE INDEX " + table + "_head ON " + table + " (aggregate_id, id) WHERE published_at IS NULL",
                "CREATE INDEX " + table + "_unpublished ON " + table + " (id) WHERE published_at IS NULL");
    }

    @Override
    protected String payloadParameter() {
        return "CAST(? AS jsonb)";
    }

    @Override
    protected String sessionIdSql() {
        return "SELECT pg_backend_pid()";
    }

    @Override
    protected String killSessionSql() {
        return "SELECT pg_terminate_backend(?::int)";
    }

    @Override
    protected String sessionCountSql() {
        return "SELECT count(*) FROM pg_stat_activity WHERE pid = ?::int";
    }

    /** Here heads are locked FOR UPDATE SKIP LOCKED, so relays take other aggregates. */
    @Override
    protected boolean relaysRunConcurrently() {
        return true;
    }
}
