package dev.onceonly.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Where the store gets its connections: the connection of the caller's Spring-managed transaction when there
 * is one (Spring on the class path), otherwise a connection of its own from the pool.
 */
interface ConnectionSource {

    Connection acquire() throws SQLException;

    /** Whether {@code connection} belongs to a transaction the caller manages. */
    boolean isJoined(Connection connection) throws SQLException;

    void release(Connection connection) throws SQLException;

    static ConnectionSource of(DataSource dataSource) {
        return SpringConnectionSource.isAvailable() ? new SpringConnectionSource(dataSource)
                : new PooledConnectionSource(dataSource);
    }

    /** A connection per call, closed after it. */
    record PooledConnectionSource(DataSource dataSource) implements ConnectionSource {

        @Override
        public Connection acquire() throws SQLException {
            return dataSource.getConnection();
        }

        @Override
        public boolean isJoined(Connection connection) {
            return false;
        }

        @Override
        public void release(Connection connection) throws SQLException {
            connection.close();
        }
    }
}
