package dev.onceonly.spring.boot.jdbc;

import dev.onceonly.jdbc.SqlFailure;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.Ordered;

/**
 * Reports a database failure at startup by what to change, in Spring Boot's "Description:" and "Action:" form,
 * rather than as a failure of whichever bean met it first (issue 41: the first error named OnceOnly's filter, the
 * cause was 170 lines down):
 * <ul>
 *   <li>Flyway without the database's module, the likeliest mistake with {@code spring-boot-starter-flyway}, which
 *       brings Flyway's core alone: whether the application's own migrations or OnceOnly's table met it first;</li>
 *   <li>the application's database refusing OnceOnly's first connection: a wrong database name, user or host.</li>
 * </ul>
 * Looks for Flyway's exception by name, so that it loads where Flyway is not.
 */
public final class DatabaseFailureAnalyzer implements FailureAnalyzer, Ordered {

    private static final String FLYWAY_UNSUPPORTED = "Unsupported Database: ";

    @Override
    public @Nullable FailureAnalysis analyze(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            String message = cause.getMessage();
            if (cause.getClass().getName().startsWith("org.flywaydb.") && message != null
                    && message.startsWith(FLYWAY_UNSUPPORTED)) {
                return new FailureAnalysis("Flyway has no support for " + message.substring(
                        FLYWAY_UNSUPPORTED.length()) + " on the class path: spring-boot-starter-flyway brings "
                        + "Flyway's core, and each database needs a module of its own. The application's migrations "
                        + "and OnceOnly's table (onceonly.jdbc.schema-init) both run on Flyway.",
                        "Add org.flywaydb:flyway-database-postgresql for PostgreSQL, or org.flywaydb:flyway-mysql "
                        + "for MariaDB; Spring Boot's dependency management gives its version.", cause);
            }
            if (cause instanceof DatabaseUnreachableException unreachable) {
                return new FailureAnalysis("The application's database refused OnceOnly's first connection: "
                        + meaning(unreachable.failure()) + " (" + unreachable.failure() + "). OnceOnly has no "
                        + "connection of its own; it uses the application's DataSource.", "Check "
                        + "spring.datasource.url (host, port and database name), spring.datasource.username and "
                        + "spring.datasource.password, and that the database exists and accepts connections.",
                        cause);
            }
        }
        return null;
    }

    /** What a connection's SQLState (or MariaDB's error code) says, in words. */
    private static String meaning(SqlFailure failure) {
        String state = Objects.requireNonNullElse(failure.sqlState(), "");
        if (state.equals("3D000") || failure.vendorCode() == 1049) {
            return "the database does not exist";
        }
        if (state.startsWith("28") || failure.vendorCode() == 1045) {
            return "the user name or password was refused";
        }
        if (state.startsWith("08")) {
            return "no connection could be made: a wrong host or port, or the server is down";
        }
        return "the connection failed";
    }

    /** Before Boot's own analyzers, as OnceOnly's configuration analyzer. */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
