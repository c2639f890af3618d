package dev.onceonly.example;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The reference service as a process of its own, started from the jar the build packaged, so that a test can
 * kill it with SIGKILL, freeze it with SIGSTOP and start it again: what no in-process test can do. Its output goes
 * to {@code target/e2e-logs/<name>.log}.
 */
final class ServiceProcess implements AutoCloseable {

    private static final Path JAR = Path.of("target", "onceonly-example.jar");
    private static final Duration STARTUP = Duration.ofSeconds(90);

    private final String name;
    private final int port;
    private final List<String> command;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private Process process;

    private ServiceProcess(String name, int port, List<String> command) {
        this.name = name;
        this.port = port;
        this.command = command;
    }

    /** Starts the service on a free port with {@code properties} as command-line arguments, and waits for it. */
    static ServiceProcess start(String name, Map<String, String> properties) throws Exception {
        if (!Files.isRegularFile(JAR)) {
            throw new IllegalStateException(JAR.toAbsolutePath() + " is missing: these tests run in the verify "
                    + "phase, after package");
        }
        int port = freePort();
        List<String> command = new ArrayList<>(List.of(javaExecutable(), "-Xmx384m", "-XX:TieredStopAtLevel=1",
                "-jar", JAR.toString(), "--server.port=" + port));
        properties.forEach((key, value) -> command.add("--" + key + "=" + value));
        ServiceProcess service = new ServiceProcess(name, port, command);
        service.launch();
        return service;
    }

    private void launch() throws Exception {
        Path log = Path.of("target", "e2e-logs", name + ".log");
        Files.createDirectories(log.getParent());
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        awaitHealthy();
    }

    /** Starts the same service again on the same port, after {@link #kill()}. */
    void restart() throws Exception {
        launch();
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    /** SIGKILL: no shutdown hook, no finally block, no outcome stored. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException(name + " did not die");
        }
    }

    /** SIGSTOP: the process stays alive and holds its connections, but runs nothing, heartbeats included. */
    void freeze() throws Exception {
        signal("STOP");
    }

    /** SIGCONT after {@link #freeze()}. */
    void thaw() throws Exception {
        signal("CONT");
    }

    private void signal(String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -" + signal + " failed for " + name);
        }
    }

    private void awaitHealthy() throws Exception {
        long deadline = System.nanoTime() + STARTUP.toNanos();
        HttpRequest health = HttpRequest.newBuilder(uri("/actuator/health")).timeout(Duration.ofSeconds(2)).build();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + "; see its log");
            }
            try {
                if (http.send(health, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // Not listening yet.
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException(name + " was not healthy within " + STARTUP);
    }

    private static String javaExecutable() {
        return ProcessHandle.current().info().command().orElse("java");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() throws Exception {
        if (process != null && process.isAlive()) {
            signal("CONT");
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
