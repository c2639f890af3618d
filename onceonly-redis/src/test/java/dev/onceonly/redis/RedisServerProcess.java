package dev.onceonly.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A {@code redis-server} of the test's own, on a free port, for tests that stop and start Redis: the shared one on
 * 6379 is never stopped. Without persistence, so a restarted server has forgotten everything, as a failed-over
 * replica behind might have. Fails when Debian's {@code redis-server} is missing; never skips.
 */
public final class RedisServerProcess implements AutoCloseable {

    private final int port;
    private final Path directory;
    private Process process;

    private RedisServerProcess(int port) throws IOException {
        this.port = port;
        this.directory = Files.createTempDirectory("onceonly-redis-");
    }

    /** Starts a server on a free port. */
    public static RedisServerProcess start() {
        try {
            RedisServerProcess server = new RedisServerProcess(freePort());
            server.restart();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A port that nothing listens on: a Redis unreachable from the start. */
    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    public int port() {
        return port;
    }

    /** Kills the server at once (SIGKILL): no goodbye to its clients. */
    public synchronized void kill() {
        if (process != null) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            process = null;
        }
    }

    /**
     * Freezes the server (SIGSTOP): its connections stay open and nothing answers, as when a host or a network
     * path dies without a reset.
     */
    public synchronized void freeze() {
        signal("STOP");
    }

    /** Lets a frozen server go on (SIGCONT). */
    public synchronized void thaw() {
        signal("CONT");
    }

    private void signal(String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + name + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Starts the server again on the same port, and waits until it accepts connections. */
    public synchronized void restart() {
        kill();
        try {
            process = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                    "--save", "", "--appendonly", "no", "--dir", directory.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(directory.resolve("redis.log").toFile())
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("redis-server could not start; install Debian's redis-server", e);
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!accepts()) {
            if (System.nanoTime() > deadline || !process.isAlive()) {
                throw new IllegalStateException("redis-server did not start on port " + port);
            }
            Thread.onSpinWait();
        }
    }

    private boolean accepts() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 100);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() {
        kill();
    }
}
