package dev.onceonly.benchmarks.http;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** The benchmark's own database on the local PostgreSQL, created empty for every run. */
final class BenchmarkDatabase {

    private static final String NAME = "onceonly_bench";

    private final String serverUrl;

    BenchmarkDatabase(String serverUrl) {
        this.serverUrl = serverUrl;
    }

    /** The JDBC URL of the benchmark database. */
    String url() {
        return serverUrl.replace("/postgres?", "/" + NAME + "?");
    }

    void recreate() throws SQLException {
        try (Connection admin = DriverManager.getConnection(serverUrl); Statement sql = admin.createStatement()) {
            sql.execute("DROP DATABASE IF EXISTS " + NAME + " WITH (FORCE)");
            sql.execute("CREATE DATABASE " + NAME);
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
            sql.execute("TRUNCATE onceonly_record, orders");
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
                PreparedStatement insert = db.prepareStatement("INSERT INTO onceonly_record (owner, operation,"
                        + " idem_key, fingerprint, state, attempt, http_status, response_headers, response_body,"
                        + " resource_id, created_at, updated_at, expires_at)"
                        + " SELECT 'seed/' || (i % 5000), 'create-order', md5(i::text),"
                        + " decode(md5(i::text) || md5((i + 1)::text), 'hex'), 'SUCCEEDED', 1, 201,"
                        + " 'Content-Type: application/json' || chr(10), convert_to('{\"orderId\":' || i || '}', 'UTF8'),"
                        + " i::text, now(), now(), now() + interval '1 day'"
                        + " FROM generate_series(?::bigint, ?::bigint) AS i")) {
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
}
