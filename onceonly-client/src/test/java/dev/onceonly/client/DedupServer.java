package dev.onceonly.client;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A loopback server with a key-deduplicating "create order" endpoint ({@code POST /orders}) that counts effects per
 * key and replays the stored first answer for a known key with {@code Idempotent-Replayed: true}, plus
 * {@code GET /orders/1}; each request takes the next scripted {@link Fault}.
 */
final class DedupServer implements AutoCloseable {

    /** What the server does to one request. */
    enum Fault {
        /** Acts and answers. */
        NONE,
        /** Acts, then closes the connection without an answer. */
        DROP_AFTER_COMMIT,
        /** Acts, then holds the answer until {@link #release()} (longer than any client timeout in the tests). */
        SLOW_AFTER_COMMIT,
        /** Holds the key in progress until {@link #release()}, then acts; the answer goes nowhere. */
        HOLD_IN_PROGRESS,
        /** 409 with Retry-After: 3600, as for a key whose first request runs for an hour. */
        IN_PROGRESS_FOR_AN_HOUR,
        /** 503 without acting. */
        UNAVAILABLE,
        /** 422 without acting. */
        UNPROCESSABLE,
        /** 500 without acting. */
        FAIL
    }

    private record Stored(int status, String body) {
    }

    static final String NO_KEY = "<none>";

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final Queue<Fault> faults = new ConcurrentLinkedQueue<>();
    private volatile Fault whenScriptEnds = Fault.NONE;
    private volatile Runnable onRequest = () -> {
    };
    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch committed = new CountDownLatch(1);

    // Guarded by this.
    private final List<String> keysSeen = new ArrayList<>();
    private final Map<String, Integer> effects = new HashMap<>();
    private final Map<String, Stored> done = new HashMap<>();
    private final Set<String> inProgress = new HashSet<>();
    private int orders;

    DedupServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(executor);
        server.createContext("/orders", exchange -> {
            try (exchange) {
                handle(exchange);
            }
        });
        server.start();
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    /** The faults for the next requests, one each, in order. */
    void script(Fault... next) {
        faults.addAll(List.of(next));
    }

    void whenScriptEnds(Fault fault) {
        whenScriptEnds = fault;
    }

    void onRequest(Runnable action) {
        onRequest = action;
    }

    void release() {
        release.countDown();
    }

    void awaitCommitted() throws InterruptedException {
        if (!committed.await(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the held request did not commit");
        }
    }

    synchronized List<String> keysSeen() {
        return List.copyOf(keysSeen);
    }

    synchronized Map<String, Integer> effects() {
        return Map.copyOf(effects);
    }

    private void handle(HttpExchange exchange) throws IOException {
        onRequest.run();
        exchange.getRequestBody().readAllBytes();
        String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
        Fault fault = faults.isEmpty() ? whenScriptEnds : faults.poll();
        synchronized (this) {
            keysSeen.add(key == null ? NO_KEY : key);
        }
        if (exchange.getRequestMethod().equals("GET")) {
            answer(exchange, fault == Fault.UNAVAILABLE ? 503 : 200, "{}", false);
            return;
        }
        if (key == null) {
            answer(exchange, 400, "{\"title\":\"Idempotency-Key missing\"}", false);
            return;
        }
        Stored replay;
        synchronized (this) {
            replay = done.get(key);
            if (replay == null && inProgress.contains(key)) {
                exchange.getResponseHeaders().set("Retry-After", "1");
                answer(exchange, 409, "{\"title\":\"in progress\"}", false);
                return;
            }
        }
        if (replay != null) {
            answer(exchange, replay.status(), replay.body(), true);
            return;
        }
        switch (fault) {
            case IN_PROGRESS_FOR_AN_HOUR -> {
                exchange.getResponseHeaders().set("Retry-After", "3600");
                answer(exchange, 409, "{\"title\":\"in progress\"}", false);
                return;
            }
            case UNAVAILABLE -> {
                answer(exchange, 503, "{\"title\":\"unavailable\"}", false);
                return;
            }
            case UNPROCESSABLE -> {
                answer(exchange, 422, "{\"title\":\"unprocessable\"}", false);
                return;
            }
            case FAIL -> {
                answer(exchange, 500, "{\"title\":\"failed\"}", false);
                return;
            }
            default -> {
            }
        }
        if (fault == Fault.HOLD_IN_PROGRESS) {
            synchronized (this) {
                inProgress.add(key);
            }
            awaitRelease();
        }
        Stored first = commit(key);
        switch (fault) {
            case DROP_AFTER_COMMIT -> {
                // Closing an exchange that sent no headers closes its connection: the client reads end of stream.
            }
            case SLOW_AFTER_COMMIT -> {
                awaitRelease();
                answerIgnoringGoneClient(exchange, first);
            }
            default -> answerIgnoringGoneClient(exchange, first);
        }
    }

    private synchronized Stored commit(String key) {
        effects.merge(key, 1, Integer::sum);
        Stored first = new Stored(201, "{\"id\":\"order-" + ++orders + "\"}");
        done.put(key, first);
        inProgress.remove(key);
        committed.countDown();
        return first;
    }

    private void awaitRelease() {
        try {
            release.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void answerIgnoringGoneClient(HttpExchange exchange, Stored stored) {
        try {
            answer(exchange, stored.status(), stored.body(), false);
        } catch (IOException | UncheckedIOException clientGaveUp) {
            // The client timed out and closed the connection; its retry gets the stored answer.
        }
    }

    private static void answer(HttpExchange exchange, int status, String body, boolean replayed) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        if (replayed) {
            exchange.getResponseHeaders().set("Idempotent-Replayed", "true");
        }
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    @Override
    public void close() {
        release();
        server.stop(0);
        executor.shutdownNow();
    }
}
