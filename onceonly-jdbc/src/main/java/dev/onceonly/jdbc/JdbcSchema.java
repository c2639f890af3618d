package dev.onceonly.jdbc;

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

    /** Creates or upgrades the tables of {@code dialect} in the data source's default schema. */
    public static void migrate(DataSource dataSource, JdbcDialect dialect) {
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
}
