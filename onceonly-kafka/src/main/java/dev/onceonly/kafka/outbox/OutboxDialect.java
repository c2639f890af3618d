package dev.onceonly.kafka.outbox;

import dev.onceonly.jdbc.SqlFailure;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import javax.sql.DataSource;

/** What differs between databases in a relay round: the head query and who may run a round at all. */
sealed interface OutboxDialect permits PostgresOutboxDialect, MariaDbOutboxDialect {

    /** The query for up to {@code ?} head rows (no earlier unpublished row of the same aggregate), by id. */
    String selectHeads(String table);

    /**
     * Called on the round's connection before its transaction; false means another relay is running a round and
     * this one publishes nothing now.
     */
    boolean enterRound(Connection connection) throws SQLException;

    /** Called on the round's connection after its transaction ended (committed or rolled back). */
    void leaveRound(Connection connection) throws SQLException;

    /**
     * Up to {@code ?} rows published at or before {@code ?} (parameters: that time, the limit), oldest id first,
     * skipping locked rows: a statement that deletes them, or a query that locks their ids for deletion by id.
     */
    String purgePublished(String table);

    /** The dialect of the database behind {@code dataSource}, for the relay of {@code table}. */
    static OutboxDialect of(DataSource dataSource, String table) {
        try (Connection connection = dataSource.getConnection()) {
            DatabaseMetaData metaData = connection.getMetaData();
            String product = metaData.getDatabaseProductName();
            return switch (product) {
                case "PostgreSQL" -> new PostgresOutboxDialect();
                case "MariaDB", "MySQL" -> new MariaDbOutboxDialect(
                        table.contains(".") ? table : connection.getCatalog() + "." + table);
                default -> throw new IllegalArgumentException("The outbox relay supports PostgreSQL and MariaDB, "
                        + "not " + product);
            };
        } catch (SQLException e) {
            throw new OutboxRelayException("Could not detect the database of the outbox relay for " + table + ": "
                    + SqlFailure.describe(e), SqlFailure.of(e).toException());
        }
    }

    /** The head query without its locking clause: a row whose aggregate has no earlier unpublished row. */
    static String heads(String table) {
        return "SELECT o.id, o.aggregate_id, o.event_type, o.event_id, o.payload FROM " + table + " o"
                + " WHERE o.published_at IS NULL AND NOT EXISTS (SELECT 1 FROM " + table + " e"
                + " WHERE e.aggregate_id = o.aggregate_id AND e.published_at IS NULL AND e.id < o.id)"
                + " ORDER BY o.id LIMIT ?";
    }
}
