package dev.onceonly.kafka.outbox;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HexFormat;

/**
 * MariaDB (and MySQL): one relay runs a round at a time, under a named lock ({@code GET_LOCK}) per table; the others
 * find it taken and publish nothing until their next poll. Row locks are not relied on: whether InnoDB's
 * {@code FOR UPDATE SKIP LOCKED} also locks, and so skips, the rows its {@code NOT EXISTS} subquery reads depends on
 * the plan and is documented nowhere; if it did, a head locked by one round would be skipped by another round's
 * subquery and the aggregate's second row would look like a head. (On MariaDB 10.11 that subquery read without
 * locks in our tests.) Under the named lock the head query is a plain read, taking no row locks that could block
 * the business transactions' inserts. The lock belongs to the session, so a relay whose connection dies loses it at
 * once.
 */
final class MariaDbOutboxDialect implements OutboxDialect {

    private final String lockName;

    /** @param qualifiedTable {@code database.table}, so that relays of one table on any instance share the lock */
    MariaDbOutboxDialect(String qualifiedTable) {
        // A lock name has at most 64 characters: a digest of the table's name keeps it short and unique.
        this.lockName = "onceonly-outbox-" + HexFormat.of().formatHex(sha256(qualifiedTable), 0, 20);
    }

    @Override
    public String selectHeads(String table) {
        return OutboxDialect.heads(table);
    }

    /** Needs no named lock: the relay's rounds read and lock unpublished rows only. */
    @Override
    public String purgePublished(String table) {
        return "SELECT id FROM " + table + " WHERE published_at <= ? ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED";
    }

    @Override
    public boolean enterRound(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT GET_LOCK(?, 0)")) {
            statement.setString(1, lockName);
            try (ResultSet result = statement.executeQuery()) {
                // 1 acquired, 0 held by another session, NULL an error.
                return result.next() && result.getInt(1) == 1;
            }
        }
    }

    @Override
    public void leaveRound(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("DO RELEASE_LOCK(?)")) {
            statement.setString(1, lockName);
            statement.execute();
        }
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every JDK has SHA-256", e);
        }
    }
}
