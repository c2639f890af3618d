package dev.onceonly.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Function;
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

    /** A statement held back to travel with a commit: sends it, with the commit or without it. */
    @FunctionalInterface
    interface HeldStatement {
        void send(Connection connection, boolean withCommit) throws SQLException;
    }

    /**
     * Holds {@code statement} back until the commit of the caller's transaction, to send it with the commit in one
     * round trip, if that transaction's commit is its connection's and nothing else's; returns whether it did.
     *
     * @param failure what the commit throws when sending fails, so that the transaction rolls back
     */
    default boolean holdUntilCommit(HeldStatement statement, Function<SQLException, RuntimeException> failure)
            throws SQLException {
        return false;
    }

    /** Sends, without the commit, the statement the caller's transaction holds back, if any. */
    default void sendHeld() throws SQLException {
    }

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
