package dev.onceonly.jdbc;

import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * What may be said of a database error: its SQLState, vendor code and exception type, never its message. Database
 * messages can quote the values of a row (PostgreSQL's "Key (owner, …)=(…) already exists", MariaDB's "Data too
 * long"), so neither an exception message nor a cause that reaches a log may carry them. Public for the
 * integrations (such as the Spring Boot starter) that report database errors of their own.
 *
 * @param sqlState the SQLState, if the driver set one
 * @param vendorCode the database's own error code
 * @param type the simple name of the driver's exception class
 */
public record SqlFailure(@Nullable String sqlState, int vendorCode, String type) {

    /** The safe description of {@code e}. */
    public static SqlFailure of(SQLException e) {
        return new SqlFailure(e.getSQLState(), e.getErrorCode(), e.getClass().getSimpleName());
    }

    /** The first {@link SQLException} in {@code failure}'s cause chain, described; else the types of the chain. */
    public static String describe(Throwable failure) {
        StringBuilder types = new StringBuilder();
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql) {
                return of(sql).toString();
            }
            types.append(types.isEmpty() ? "" : " caused by ").append(cause.getClass().getSimpleName());
        }
        return types.toString();
    }

    /**
     * An {@link SQLException} with only these facts (its message is {@link #toString()}), to attach as the cause of
     * an exception of ours: code that looks for an SQLState among the causes (health checks, retry classifiers)
     * finds it, and a logged stack trace prints nothing the database said.
     */
    public SQLException toException() {
        return new SQLException(toString(), sqlState, vendorCode);
    }

    @Override
    public String toString() {
        return "SQLState " + sqlState + ", error code " + vendorCode + " (" + type + ")";
    }
}
