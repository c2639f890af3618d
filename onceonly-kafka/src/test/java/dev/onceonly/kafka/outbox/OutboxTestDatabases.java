package dev.onceonly.kafka.outbox;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The always-on local databases: one shared pool each per test JVM, and pools of their own for tests that kill a
 * relay's sessions or run several relays. A test that needs a database fails when it is missing.
 */
final class OutboxTestDatabases {

    static final String POSTGRES_URL = System.getProperty("onceonly.test.postgres.url",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    static final String MARIADB_URL = System.getProperty("onceonly.test.mariadb.url",
            "jdbc:mariadb://127.0.0.1:3306/test?user=root");

    private static final Map<String, HikariDataSource> SHARED = new ConcurrentHashMap<>();

    private OutboxTestDatabases() {
    }

    static HikariDataSource shared(String url) {
        return SHARED.computeIfAbsent(url, ignored -> pool(url, "outbox-it-shared", 8));
    }

    /** A pool the caller closes. */
    static HikariDataSource pool(String url, String name, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(size);
        config.setPoolName(name);
        return new HikariDataSource(config);
    }
}
