package dev.onceonly.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Function;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Joins the transaction Spring manages for the data source, if one is active. Loaded only when Spring JDBC is
 * on the class path.
 */
record SpringConnectionSource(DataSource dataSource) implements ConnectionSource {

    private static final String PROBE = "org.springframework.jdbc.datasource.DataSourceUtils";

    static boolean isAvailable() {
        try {
            Class.forName(PROBE, false, ConnectionSource.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * The connection of a transaction of this data source, which binds it when it begins (its transaction
     * manager's, or JPA's exposing its connection), or else one of the store's own. Without a bound connection the
     * store takes its own straight from the pool: through {@link DataSourceUtils} it would be bound to whatever
     * transaction synchronization is active (say a transaction manager of another data source), whose commit and
     * rollback never reach it, so that work the store must commit would wait, uncommitted, for the end of a
     * transaction that is not its own.
     */
    @Override
    public Acquired acquire() throws SQLException {
        if (!(TransactionSynchronizationManager.getResource(dataSource) instanceof ConnectionHolder)) {
            return new Acquired(dataSource.getConnection(), false);
        }
        Connection connection;
        try {
            connection = DataSourceUtils.getConnection(dataSource);
        } catch (DataAccessException e) {
            if (e.getCause() instanceof SQLException cause) {
                throw cause;
            }
            throw new SQLException("no connection", "08001", e);
        }
        // In auto-commit, each statement commits at once: nothing joins a transaction there.
        return new Acquired(connection, DataSourceUtils.isConnectionTransactional(connection, dataSource)
                && !connection.getAutoCommit());
    }

    @Override
    public void release(Connection connection) {
        DataSourceUtils.releaseConnection(connection, dataSource);
    }

    @Override
    public boolean holdUntilCommit(HeldStatement statement, Function<SQLException, RuntimeException> failure)
            throws SQLException {
        return DeferredCompletion.holdUntilCommit(dataSource, statement, failure);
    }

    @Override
    public void sendHeld() throws SQLException {
        DeferredCompletion.sendHeld();
    }
}
