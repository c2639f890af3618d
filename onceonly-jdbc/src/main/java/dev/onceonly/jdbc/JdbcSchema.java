package dev.onceonly.jdbc;

import dev.onceonly.IdempotencyConfigurationException;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/**
 * Applies the bundled migrations of a dialect with Flyway (an optional dependency, with the Flyway database
 * module of your database, e.g. {@code flyway-database-postgresql}).
 *
 * <p>OnceOnly keeps its own history table, {@value #HISTORY_TABLE}, so its versions never collide with the
 * application's migrations in the same schema. Teams that manage their schema otherwise run the SQL files
 * under {@link JdbcDialect#migrationLocation()} themselves.
 */
public final class JdbcSchema {

    /** The Flyway history table of OnceOnly's migrations. */
    public static final String HISTORY_TABLE = "onceonly_schema_history";

    private JdbcSchema() {
    }

    /**
     * Creates or upgrades the tables of {@code dialect} in the data source's default schema.
     *
     * @throws IdempotencyConfigurationException if the dialect's Flyway database module is missing (Flyway itself
     *     would only say "Unsupported Database")
     */
    public static void migrate(DataSource dataSource, JdbcDialect dialect) {
        JdbcDialect.FlywayModule module = dialect.flywayModule();
        if (module != null) {
            requirePresent(module, dialect);
        }
        Flyway.configure()
                .dataSource(dataSource)
                .locations(dialect.migrationLocation())
                .table(HISTORY_TABLE)
                // The schema usually holds the application's tables already; start our history before V1.
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .load()
                .migrate();
    }

    static void requirePresent(JdbcDialect.FlywayModule module, JdbcDialect dialect) {
        try {
            Class.forName(module.databaseType(), false, JdbcSchema.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw IdempotencyConfigurationException.of("Flyway", "Flyway cannot migrate OnceOnly's table on "
                    + dialect.name() + " without its database module", "Add " + module.coordinates() + " to the "
                    + "dependencies, or create the table yourself from " + dialect.migrationLocation());
        }
    }
}
