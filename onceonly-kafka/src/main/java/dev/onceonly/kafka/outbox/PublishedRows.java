package dev.onceonly.kafka.outbox;

import dev.onceonly.jdbc.SqlFailure;
import dev.onceonly.spi.Purgeable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import javax.sql.DataSource;

/**
 * The outbox rows published longer than the retention ago, for the background cleanup: an outbox is only needed
 * until its rows are sent, and kept a while after for whoever debugs a consumer. Deleted oldest id first, in short
 * READ COMMITTED transactions that skip locked rows; unpublished rows are never touched.
 */
final class PublishedRows implements Purgeable {

    private final DataSource dataSource;
    private final String table;
    private final Duration retention;
    private final OutboxDialect dialect;
    private final String purgeSql;
    private final String deleteSql;

    PublishedRows(DataSource dataSource, String table, Duration retention, OutboxDialect dialect) {
        if (retention.isNegative() || retention.isZero()) {
            throw new IllegalArgumentException("The outbox retention must be positive, but is " + retention);
        }
        this.dataSource = dataSource;
        this.table = table;
        this.retention = retention;
        this.dialect = dialect;
        this.purgeSql = dialect.purgePublished(table);
        this.deleteSql = "DELETE FROM " + table + " WHERE id = ?";
    }

    @Override
    public String name() {
        return "outbox";
    }

    @Override
    public int purge(Instant now, int limit) {
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            int isolation = connection.getTransactionIsolation();
            // READ COMMITTED: no gap locks on MariaDB that could hold back the business transactions' inserts.
            connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            connection.setAutoCommit(false);
            try {
                int deleted = purge(connection, now, limit);
                connection.commit();
                return deleted;
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(autoCommit);
                connection.setTransactionIsolation(isolation);
            }
        } catch (SQLException e) {
            throw new OutboxRelayException("Purging the published rows of outbox " + table + " failed: "
                    + SqlFailure.describe(e), SqlFailure.of(e).toException());
        }
    }

    private int purge(Connection connection, Instant now, int limit) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(purgeSql)) {
            statement.setTimestamp(1, Timestamp.from(now.minus(retention).truncatedTo(ChronoUnit.MICROS)));
            statement.setInt(2, limit);
            if (!statement.execute()) {
                return statement.getUpdateCount();
            }
            int deleted = 0;
            try (ResultSet locked = statement.getResultSet();
                    PreparedStatement delete = connection.prepareStatement(deleteSql)) {
                while (locked.next()) {
                    delete.setLong(1, locked.getLong(1));
                    delete.addBatch();
                    deleted++;
                }
                if (deleted > 0) {
                    delete.executeBatch();
                }
            }
            return deleted;
        }
    }

    @Override
    public String toString() {
        return "PublishedRows[" + table + ", " + retention + ", " + dialect + "]";
    }
}
