package dev.onceonly.benchmarks.http;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/** A database of the benchmark's own on the local PostgreSQL, created empty for every run. */
final class BenchmarkDatabase {

    private static final String NAME = "onceonly_bench";

    private final String serverUrl;
    private final String name;

    /** The benchmark's main database. */
    BenchmarkDatabase(String serverUrl) {
        this(serverUrl, NAME);
    }

    private BenchmarkDatabase(String serverUrl, String name) {
        this.serverUrl = serverUrl;
        this.name = name;
    }

    /** Another database of the benchmark's on the same server, named after this one with {@code suffix}. */
    BenchmarkDatabase sibling(String suffix) {
        return new BenchmarkDatabase(serverUrl, name + "_" + suffix);
    }

    /** The JDBC URL of this database. */
    String url() {
        return serverUrl.replace("/postgres?", "/" + name + "?");
    }

    void recreate() throws SQLException {
        drop();
        admin("CREATE DATABASE " + name);
        try (Connection db = DriverManager.getConnection(url()); Statement sql = db.createStatement()) {
            // Its view, which reads what the server counts once the library is preloaded.
            sql.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
        }
    }

    void drop() throws SQLException {
        admin("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }

    private void admin(String statement) throws SQLException {
        try (Connection admin = DriverManager.getConnection(serverUrl); Statement sql = admin.createStatement()) {
            sql.execute(statement);
        }
    }

    String serverVersion() throws SQLException {
        try (Connection admin = DriverManager.getConnection(serverUrl); Statement sql = admin.createStatement();
                ResultSet row = sql.executeQuery("SHOW server_version")) {
            row.next();
            return row.getString(1);
        }
    }

    /** How many of the record table's updates so far were in place (HOT), as "hot of all". */
    String hotUpdates() throws SQLException {
        try (Connection db = DriverManager.getConnection(url()); Statement sql = db.createStatement()) {
            sql.execute("SELECT pg_stat_force_next_flush()");
            try (ResultSet row = sql.executeQuery("SELECT n_tup_hot_upd, n_tup_upd FROM pg_stat_user_tables"
                    + " WHERE relname = 'onceonly_record'")) {
                return row.next() ? row.getLong(1) + " of " + row.getLong(2) : "unknown";
            }
        }
    }

    /** Empties the record and order tables, e.g. of what a warm-up wrote. */
    void truncate() throws SQLException {
        try (Connection db = DriverManager.getConnection(url()); Statement sql = db.createStatement()) {
            // With what refers to the orders (payments, their outbox, notifications).
            sql.execute("TRUNCATE onceonly_record, orders CASCADE");
        }
    }

    long records() throws SQLException {
        try (Connection db = DriverManager.getConnection(url()); Statement sql = db.createStatement();
                ResultSet row = sql.executeQuery("SELECT count(*) FROM onceonly_record")) {
            row.next();
            return row.getLong(1);
        }
    }

    /**
     * Adds completed records until the table holds {@code total}: random keys under 5,000 owners, as real traffic
     * would spread them over the primary key.
     */
    void seedRecords(long total) throws SQLException {
        long have = records();
        try (Connection db = DriverManager.getConnection(url());
                PreparedStatement insert = db.prepareStatement(insertRecords("seed/", "now() + interval '1 day'"))) {
            for (long from = have; from < total; from += 500_000) {
                insert.setLong(1, from + 1);
                insert.setLong(2, Math.min(total, from + 500_000));
                insert.executeUpdate();
            }
        }
        try (Connection db = DriverManager.getConnection(url()); Statement sql = db.createStatement()) {
            sql.execute("VACUUM ANALYZE onceonly_record");
        }
    }

    /**
     * Adds {@code count} records that expired an hour ago, shaped as {@link #seedRecords} makes them, in one
     * transaction that also analyzes the table: a running cleaner sees all of them at once, with statistics that
     * know them.
     *
     * @return {@link System#nanoTime()} at the commit
     */
    long seedExpiredRecords(long count) throws SQLException {
        try (Connection db = DriverManager.getConnection(url())) {
            db.setAutoCommit(false);
            try (PreparedStatement insert = db.prepareStatement(insertRecords("expired/",
                    "now() - interval '1 hour'")); Statement sql = db.createStatement()) {
                insert.setLong(1, 1);
                insert.setLong(2, count);
                insert.executeUpdate();
                sql.execute("ANALYZE onceonly_record");
            }
            db.commit();
            return System.nanoTime();
        }
    }

    /**
     * Waits until no record has expired, looking every {@code every}; returns {@link System#nanoTime()} when it saw
     * none. One probe of the {@code expires_at} index each time.
     */
    long awaitNoExpiredRecords(Duration every, Duration timeout) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Connection db = DriverManager.getConnection(url()); PreparedStatement expired = db.prepareStatement(
                "SELECT EXISTS (SELECT 1 FROM onceonly_record WHERE expires_at <= now())")) {
            while (System.nanoTime() < deadline) {
                try (ResultSet row = expired.executeQuery()) {
                    row.next();
                    if (!row.getBoolean(1)) {
                        return System.nanoTime();
                    }
                }
                Thread.sleep(every);
            }
        }
        throw new IllegalStateException("expired records were still there after " + timeout);
    }

    /** Completed records numbered by {@code generate_series(?, ?)}, under owners {@code ownerPrefix + (i % 5000)}. */
    private static String insertRecords(String ownerPrefix, String expiresAt) {
        return "INSERT INTO onceonly_record (owner, operation, idem_key, fingerprint, state, attempt, http_status,"
                + " response_headers, response_body, resource_id, created_at, updated_at, expires_at)"
                + " SELECT '" + ownerPrefix + "' || (i % 5000), 'create-order', md5(i::text),"
                + " decode(md5(i::text) || md5((i + 1)::text), 'hex'), 'SUCCEEDED', 1, 201,"
                + " 'Content-Type: application/json' || chr(10), convert_to('{\"orderId\":' || i || '}', 'UTF8'),"
                + " i::text, now(), now(), " + expiresAt
                + " FROM generate_series(?::bigint, ?::bigint) AS i";
    }
}
