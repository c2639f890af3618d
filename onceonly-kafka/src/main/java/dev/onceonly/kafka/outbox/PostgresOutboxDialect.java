package dev.onceonly.kafka.outbox;

import java.sql.Connection;

/**
 * PostgreSQL: every relay runs rounds at once. A head row is locked {@code FOR UPDATE SKIP LOCKED}, so a concurrent
 * round skips it; the {@code NOT EXISTS} subquery is a plain read, so the locked head still counts as unpublished and
 * the aggregate's next row is no head until the head's round committed.
 */
final class PostgresOutboxDialect implements OutboxDialect {

    @Override
    public String selectHeads(String table) {
        return OutboxDialect.heads(table) + " FOR UPDATE OF o SKIP LOCKED";
    }

    @Override
    public String purgePublished(String table) {
        return "WITH doomed AS (SELECT id FROM " + table + " WHERE published_at <= ? ORDER BY id LIMIT ?"
                + " FOR UPDATE SKIP LOCKED) DELETE FROM " + table + " o USING doomed WHERE o.id = doomed.id";
    }

    @Override
    public boolean enterRound(Connection connection) {
        return true;
    }

    @Override
    public void leaveRound(Connection connection) {
        // Nothing to release: the row locks ended with the transaction.
    }
}
