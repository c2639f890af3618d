package dev.onceonly.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;

/**
 * The always-on local databases the integration tests use, one pool each per test JVM, migrated once. A test
 * that needs a database fails when it is missing: nothing here skips.
 */
final class TestDatabases {

    private static final String POSTGRES_URL = System.getProperty("onceonly.test.postgres.url",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    private static volatile HikariDataSource postgres;

    private TestDatabases() {
    }

    static synchronized DataSource postgres() {
        if (postgres == null) {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(POSTGRES_URL);
            config.setMaximumPoolSize(24);
            config.setPoolName("onceonly-it-postgres");
            postgres = new HikariDataSource(config);
            JdbcSchema.migrate(postgres, new PostgresDialect());
        }
        return postgres;
    }
}
