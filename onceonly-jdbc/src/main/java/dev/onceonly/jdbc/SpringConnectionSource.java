package dev.onceonly.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.datasource.DataSourceUtils;

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

    @Override
    public Connection acquire() throws SQLException {
        try {
            return DataSourceUtils.getConnection(dataSource);
        } catch (DataAccessException e) {
            if (e.getCause() instanceof SQLException cause) {
                throw cause;
            }
            throw new SQLException("no connection", "08001", e);
        }
    }

    /**
     * Bound to the thread alone is not enough: while any transaction synchronization is active (say a transaction
     * manager of another data source runs), Spring binds the store's connection too, though no transaction of
     * this data source began; that connection is still in auto-commit, and each statement on it commits at once.
     */
    @Override
    public boolean isJoined(Connection connection) throws SQLException {
        return DataSourceUtils.isConnectionTransactional(connection, dataSource) && !connection.getAutoCommit();
    }

    @Override
    public void release(Connection connection) {
        DataSourceUtils.releaseConnection(connection, dataSource);
    }
}
