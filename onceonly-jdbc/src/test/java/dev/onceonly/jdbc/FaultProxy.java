package dev.onceonly.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy in front of a database that slows or cuts what passes through it, as a distant database, a congested
 * network or a partition does: every chunk from the database waits {@link #latency} before it is forwarded, and
 * while {@linkplain #blackhole() blackholed} nothing is forwarded either way, without a connection being closed
 * (a partition: both ends see silence, not a reset). {@link #restore()} forwards what was held back, as TCP
 * retransmits do when a partition heals. Toxiproxy does this, and cannot be installed here; this is the part of it
 * the fault tests need.
 */
final class FaultProxy implements AutoCloseable {

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Object gate = new Object();
    private volatile Duration latency = Duration.ZERO;
    private boolean blackholed;

    private FaultProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().name("fault-proxy-accept").start(this::accept);
    }

    /** A proxy on a free local port in front of {@code host:port}. */
    static FaultProxy to(String host, int port) throws IOException {
        return new FaultProxy(new InetSocketAddress(host, port));
    }

    int port() {
        return server.getLocalPort();
    }

    /** Delays every chunk the database sends by {@code latency}: each statement's round trip takes that longer. */
    void latency(Duration latency) {
        this.latency = latency;
    }

    /** Forwards nothing, either way, until {@link #restore()}; connections stay open. */
    void blackhole() {
        synchronized (gate) {
            blackholed = true;
        }
    }

    void restore() {
        synchronized (gate) {
            blackholed = false;
            gate.notifyAll();
        }
    }

    private void accept() {
        while (!server.isClosed()) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException closed) {
                return;
            }
            try {
                Socket database = new Socket(target.getAddress(), target.getPort());
                client.setTcpNoDelay(true);
                database.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(database);
                pipe(client, database, false);
                pipe(database, client, true);
            } catch (IOException unreachable) {
                // This connection fails, as it would without the proxy; the next may succeed.
                closeQuietly(client);
            }
        }
    }

    private void pipe(Socket from, Socket to, boolean fromDatabase) {
        Thread.ofPlatform().daemon().name("fault-proxy-pipe").start(() -> {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    passGate();
                    Duration delay = latency;
                    if (fromDatabase && !delay.isZero()) {
                        Thread.sleep(delay);
                        // A blackhole that began while this chunk waited holds it too.
                        passGate();
                    }
                    out.write(buffer, 0, read);
                    out.flush();
                }
            } catch (IOException | InterruptedException closed) {
                // One side closed: close the other, as a proxy does.
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                sockets.remove(from);
                sockets.remove(to);
            }
        });
    }

    private void passGate() throws InterruptedException {
        synchronized (gate) {
            while (blackholed) {
                gate.wait();
            }
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        restore();
        server.close();
        sockets.forEach(FaultProxy::closeQuietly);
    }
}
