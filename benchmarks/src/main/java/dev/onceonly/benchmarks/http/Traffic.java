package dev.onceonly.benchmarks.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * What a service sent its database and Redis so far, counted from outside it: the statements PostgreSQL ran for
 * the benchmark database ({@code pg_stat_statements}, where it is preloaded), the commands Redis ran, and the round
 * trips to each as the data segments the service's own connections sent (Linux's TCP counters, read with {@code ss}):
 * a request the service sends, however many statements it holds, leaves as one segment on the loopback, whose
 * segments take 64 KiB. A pipeline of Redis commands is one round trip, as it should count.
 *
 * @param databaseStatements statements of the benchmark database, {@code -1} where {@code pg_stat_statements} is not
 *     loaded
 * @param redisCommands commands Redis ran, from any client (only the measured service sends any during a round)
 */
public record Traffic(long databaseStatements, long databaseRoundTrips, long redisCommands, long redisRoundTrips) {

    static final int DATABASE_PORT = 5432;
    static final int REDIS_PORT = 6379;
    private static final Pattern PEER = Pattern.compile("\\S+:(\\d+)\\s+users:.*pid=(\\d+),");
    private static final Pattern DATA_SEGMENTS_OUT = Pattern.compile("\\bdata_segs_out:(\\d+)");
    private static final Pattern COMMANDS = Pattern.compile("total_commands_processed:(\\d+)");

    /**
     * Per request, over a round.
     *
     * @param databaseStatements {@code null} where {@code pg_stat_statements} is not loaded
     */
    public record PerRequest(@Nullable Double databaseStatements, double databaseRoundTrips, double redisCommands,
            double redisRoundTrips) {
    }

    static Traffic read(ServiceProcess service) throws Exception {
        long[] segments = segmentsOut(service.pid());
        return new Traffic(statementsRun(service.jdbcUrl()), segments[0], commandsRedisRan(), segments[1]);
    }

    /**
     * How many statements the server ran for a database so far (every one counts, BEGIN and COMMIT too), or
     * {@code -1} where {@code pg_stat_statements} is not in the server's {@code shared_preload_libraries}.
     */
    private static long statementsRun(String jdbcUrl) throws SQLException {
        try (Connection db = DriverManager.getConnection(jdbcUrl); Statement sql = db.createStatement();
                ResultSet loaded = sql.executeQuery("SELECT count(*) FROM pg_extension e WHERE e.extname ="
                        + " 'pg_stat_statements' AND current_setting('shared_preload_libraries') LIKE"
                        + " '%pg_stat_statements%'")) {
            loaded.next();
            if (loaded.getLong(1) == 0) {
                return -1;
            }
            try (ResultSet row = sql.executeQuery("SELECT coalesce(sum(calls), 0) FROM pg_stat_statements s"
                    + " JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = current_database()")) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    PerRequest perRequestSince(Traffic start, long requests) {
        return new PerRequest(databaseStatements < 0 || start.databaseStatements < 0 ? null
                : (double) (databaseStatements - start.databaseStatements) / requests,
                (double) (databaseRoundTrips - start.databaseRoundTrips) / requests,
                (double) (redisCommands - start.redisCommands) / requests,
                (double) (redisRoundTrips - start.redisRoundTrips) / requests);
    }

    /** The data segments the process's connections to the database and to Redis sent so far. */
    private static long[] segmentsOut(long pid) throws IOException, InterruptedException {
        Process ss = new ProcessBuilder("ss", "-tinpH", "state", "established").redirectErrorStream(true).start();
        List<String> lines = new String(ss.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        if (ss.waitFor() != 0) {
            throw new IllegalStateException("ss failed: " + String.join("\n", lines));
        }
        return segmentsOut(lines, pid);
    }

    /** {@code ss -tinpH} prints a line per connection, its TCP counters on the line after it. */
    static long[] segmentsOut(List<String> lines, long pid) {
        long[] segments = new long[2];
        for (int i = 0; i + 1 < lines.size(); i++) {
            Matcher peer = PEER.matcher(lines.get(i));
            if (!peer.find() || Long.parseLong(peer.group(2)) != pid) {
                continue;
            }
            int port = Integer.parseInt(peer.group(1));
            int slot = port == DATABASE_PORT ? 0 : port == REDIS_PORT ? 1 : -1;
            Matcher counted = DATA_SEGMENTS_OUT.matcher(lines.get(i + 1));
            if (slot >= 0 && counted.find()) {
                segments[slot] += Long.parseLong(counted.group(1));
            }
        }
        return segments;
    }

    /** Redis's {@code total_commands_processed}, asked over a socket of its own (RESP inline command). */
    private static long commandsRedisRan() throws IOException {
        try (Socket socket = new Socket("127.0.0.1", REDIS_PORT)) {
            OutputStream out = socket.getOutputStream();
            out.write("INFO stats\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String header = readLine(in);
            if (!header.startsWith("$")) {
                throw new IllegalStateException("Redis answered INFO with " + header);
            }
            byte[] body = in.readNBytes(Integer.parseInt(header.substring(1)));
            Matcher commands = COMMANDS.matcher(new String(body, StandardCharsets.UTF_8));
            if (!commands.find()) {
                throw new IllegalStateException("Redis's INFO stats has no total_commands_processed");
            }
            return Long.parseLong(commands.group(1));
        }
    }

    private static String readLine(InputStream in) throws IOException {
        List<Byte> bytes = new ArrayList<>();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new IOException("Redis closed the connection");
            }
            if (b != '\r') {
                bytes.add((byte) b);
            }
        }
        byte[] line = new byte[bytes.size()];
        for (int i = 0; i < line.length; i++) {
            line[i] = bytes.get(i);
        }
        return new String(line, StandardCharsets.US_ASCII);
    }
}
