package dev.onceonly.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Where the store gets its connections: the connection of the caller's Spring-managed transaction when there
 * is one (Spring on the class path), otherwise a connection of its own from the pool.
 */
interface ConnectionSource {

    /**
     * A connection to work on.
     *
     * @param connection the connection
     * @param joined whether it belongs to a transaction the caller manages, which commits or rolls back the work
     */
    record Acquired(Connection connection, boolean joined) {
    }

    Acquired acquire() throws SQLException;

    void release(Connection connection) throws SQLException;

    static ConnectionSource of(DataSource dataSource) {
        return SpringConnectionSource.isAvailable() ? new SpringConnectionSource(dataSource)
                : new PooledConnectionSource(dataSource);
    }

    /** A connection per call, closed after it. */
    record PooledConnectionSource(DataSource dataSource) implements ConnectionSource {

        @Override
        public Acquired acquire() throws SQLException {
            return new Acquired(dataSource.getConnection(), false);
        }

        @Override
        public void release(Connection connection) throws SQLException {
            connection.close();
        }
    }
}
