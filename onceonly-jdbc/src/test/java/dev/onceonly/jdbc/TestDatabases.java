package dev.onceonly.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

/**
 * The always-on local databases the integration tests use, one pool each per test JVM, migrated once. A test
 * that needs a database fails when it is missing: nothing here skips.
 */
final class TestDatabases {

    /** Counts the PostgreSQL sessions blocked by the session (backend pid) given as the parameter. */
    static final String POSTGRES_WAITERS_BLOCKED_BY =
            "SELECT count(*) FROM pg_stat_activity WHERE ?::int = ANY (pg_blocking_pids(pid))";
    /** Counts the MariaDB transactions waiting for a row lock of the connection given as the parameter. */
    static final String MARIADB_WAITERS_BLOCKED_BY = "SELECT count(*) FROM information_schema.INNODB_LOCK_WAITS w"
            + " JOIN information_schema.INNODB_TRX t ON t.trx_id = w.blocking_trx_id WHERE t.trx_mysql_thread_id = ?";

    private static final Map<String, HikariDataSource> POOLS = new ConcurrentHashMap<>();
    /**
     * JUnit's {@code @Timeout} cannot interrupt a statement blocked on a lock: a read timeout on every test
     * connection makes such a regression fail the test instead of hanging the build. PostgreSQL's driver counts
     * in seconds, MariaDB's in milliseconds.
     */
    private static final Map<String, String> SOCKET_TIMEOUTS = Map.of("postgresql", "60", "mariadb", "60000");

    private TestDatabases() {
    }

    static DataSource postgres() {
        return pool(postgresUrl(), new PostgresDialect());
    }

    /** The JDBC URL of the PostgreSQL database ({@code onceonly.test.postgres.url}). */
    static String postgresUrl() {
        return System.getProperty("onceonly.test.postgres.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    }

    /** PostgreSQL through a pool that hands out connections without auto-commit, as many JPA setups do. */
    static DataSource postgresWithoutAutoCommit() {
        HikariDataSource pool = (HikariDataSource) POOLS.computeIfAbsent("postgres-without-auto-commit", ignored -> {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(postgresUrl());
            config.setAutoCommit(false);
            config.addDataSourceProperty("socketTimeout", SOCKET_TIMEOUTS.get("postgresql"));
            config.setMaximumPoolSize(24);
            config.setPoolName("onceonly-it-postgres-no-auto-commit");
            return new HikariDataSource(config);
        });
        postgres();
        return pool;
    }

    static DataSource mariaDb() {
        return pool(System.getProperty("onceonly.test.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/test?user=root"),
                new MariaDbDialect());
    }

    private static DataSource pool(String url, JdbcDialect dialect) {
        return POOLS.computeIfAbsent(url, ignored -> {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(url);
            config.addDataSourceProperty("socketTimeout", SOCKET_TIMEOUTS.get(url.split(":")[1]));
            config.setMaximumPoolSize(24);
            config.setPoolName("onceonly-it-" + dialect.name());
            HikariDataSource pool = new HikariDataSource(config);
            JdbcSchema.migrate(pool, dialect);
            return pool;
        });
    }
}
