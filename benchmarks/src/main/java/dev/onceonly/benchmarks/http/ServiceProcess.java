package dev.onceonly.benchmarks.http;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The reference service as a process of its own, on the benchmark database, started and stopped per scenario. */
final class ServiceProcess implements AutoCloseable {

    /** The service's connection pool, which the database floor uses too. */
    static final int POOL_SIZE = 16;
    /**
     * Every service JVM gets the same heap and a fixed young generation, so that a young collection's pause
     * compares like with like between services: left to itself, G1 sizes each JVM's young generation by its own
     * history, and the pause follows the size it chose. Small enough that a profile round sees tens of
     * collections, not a handful.
     */
    static final List<String> HEAP = List.of("-Xms1g", "-Xmx1g", "-Xmn32m");

    private static final String TOTAL_COMPILES = "sun.ci.totalCompiles=";

    private final Process process;
    private final int port;
    private final String jdbcUrl;

    private ServiceProcess(Process process, int port, String jdbcUrl) {
        this.process = process;
        this.port = port;
        this.jdbcUrl = jdbcUrl;
    }

    /**
     * Starts {@code jar} with {@code onceonly.enabled} set as given and the further {@code properties}
     * ({@code name=value}, each named once: Boot joins the values of a repeated one), and waits until it answers
     * its health check.
     */
    static ServiceProcess start(Path jar, String jdbcUrl, boolean idempotency, List<String> properties, Path log)
            throws Exception {
        int port = freePort();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString()));
        command.addAll(HEAP);
        command.addAll(List.of("-jar", jar.toString(),
                "--server.port=" + port,
                "--spring.datasource.url=" + jdbcUrl,
                "--spring.datasource.hikari.maximum-pool-size=" + POOL_SIZE,
                "--onceonly.enabled=" + idempotency,
                "--logging.level.root=WARN"));
        properties.forEach(property -> command.add("--" + property));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        ServiceProcess service = new ServiceProcess(process, port, jdbcUrl);
        try {
            service.awaitHealthy(Duration.ofSeconds(120));
        } catch (Exception | Error e) {
            service.close();
            throw e;
        }
        return service;
    }

    /** The on-core and waiting time of the service's threads whose names start with {@code prefix}, by thread. */
    Map<Long, ProcessCpu.Schedule> schedules(String prefix) throws IOException {
        return ProcessCpu.schedules(process.pid(), prefix);
    }

    /** The database the service runs on. */
    String jdbcUrl() {
        return jdbcUrl;
    }

    long pid() {
        return process.pid();
    }

    /** The CPU time the service's process used so far, all threads, in clock ticks. */
    long cpuTicks() throws IOException {
        return ProcessCpu.ticks(process.pid());
    }

    /** Runs a diagnostic command in the service's JVM, such as {@code JFR.start}; returns what it printed. */
    String jcmd(String... command) throws Exception {
        List<String> line = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(process.pid())));
        line.addAll(List.of(command));
        Process jcmd = new ProcessBuilder(line).redirectErrorStream(true).start();
        String output = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (jcmd.waitFor() != 0) {
            throw new IllegalStateException("jcmd " + String.join(" ", command) + " failed: " + output);
        }
        return output;
    }

    /** How many methods the service's JIT compilers have compiled so far (HotSpot's {@code sun.ci.totalCompiles}). */
    long compilations() throws Exception {
        return compilations(jcmd("PerfCounter.print"));
    }

    static long compilations(String perfCounters) {
        return perfCounters.lines().filter(line -> line.startsWith(TOTAL_COMPILES)).findFirst()
                .map(line -> Long.parseLong(line.substring(TOTAL_COMPILES.length()).trim()))
                .orElseThrow(() -> new IllegalStateException("the JVM printed no " + TOTAL_COMPILES));
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private void awaitHealthy(Duration timeout) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        Instant deadline = Instant.now().plus(timeout);
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the service exited with " + process.exitValue());
            }
            try {
                HttpResponse<Void> health = http.send(HttpRequest.newBuilder(uri("/actuator/health")).build(),
                        HttpResponse.BodyHandlers.discarding());
                if (health.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // still starting
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("the service did not become healthy within " + timeout);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }
}
