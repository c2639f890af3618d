package dev.onceonly.benchmarks.http;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.HdrHistogram.Histogram;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.util.Timeout;

/**
 * A load driver. Closed loop ({@link #run}): each client sends its next request (or does its next piece of
 * {@link Work}) as soon as the previous one ended, for a fixed time. Open loop ({@link #openLoop}): requests leave at
 * a fixed rate whatever the answers, as a service's users send them. Latencies go into an HdrHistogram per group, in microseconds.
 *
 * <p>Requests go out through Apache HttpClient's classic (blocking) client, one call on the calling platform thread,
 * over pooled keep-alive connections. The driver shares the service's two cores, so what it costs a request is taken
 * from the service's throughput, and more from a cheap request than from a dear one: measured by hand on the replay
 * endpoint with 16 clients, the JDK's {@code HttpClient} (asynchronous underneath, a hand-off to its selector thread
 * each way) spent 0.15 ms of CPU a request, this client 0.09 ms on virtual threads and 0.05 ms on platform threads,
 * against 0.025 ms for a bare socket writing bytes and reading the answer's length. Virtual threads cost more here
 * because every blocking read parks the thread and wakes it through the poller and the scheduler, two hand-offs a
 * request that a platform thread blocked in the kernel does without; the driver has few threads, so it gains nothing
 * from them.
 */
final class LoadDriver {

    /** Builds client {@code client}'s next request. */
    @FunctionalInterface
    interface Requests {
        ClassicHttpRequest next(int client);
    }

    /** One call of client {@code client}, whatever it sends; returns its status (an HTTP status, or 201 for done). */
    @FunctionalInterface
    interface Work {
        int call(int client) throws Exception;
    }

    /** A group of clients doing the same kind of work. */
    record Group(String name, int clients, Work work) {
    }

    /** What one group did in one round. */
    record GroupResult(String name, int clients, long requests, double seconds, Histogram latencies,
            Map<Integer, Long> statuses) {

        double throughput() {
            return requests / seconds;
        }

        double p50Millis() {
            return latencies.getValueAtPercentile(50) / 1000.0;
        }

        double p99Millis() {
            return latencies.getValueAtPercentile(99) / 1000.0;
        }
    }

    /**
     * As many connections as requests in flight: an open loop whose service stalls keeps sending, on new
     * connections, as its users would, rather than queueing in the driver.
     */
    private static final int MAX_CONNECTIONS = 10_000;

    /**
     * Never retries (a retry would be a duplicate the scenario did not send), and sends nothing the JDK's client,
     * which the earlier reports used, did not: no cookies back, no {@code Accept-Encoding}.
     */
    private final CloseableHttpClient http = HttpClients.custom()
            .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                    .setMaxConnTotal(MAX_CONNECTIONS)
                    .setMaxConnPerRoute(MAX_CONNECTIONS)
                    .setDefaultConnectionConfig(ConnectionConfig.custom()
                            .setConnectTimeout(Timeout.ofSeconds(10))
                            .setSocketTimeout(Timeout.ofSeconds(60))
                            .build())
                    .build())
            .setDefaultRequestConfig(RequestConfig.custom().setResponseTimeout(Timeout.ofSeconds(60)).build())
            .disableAutomaticRetries()
            .disableRedirectHandling()
            .disableCookieManagement()
            .disableContentCompression()
            .build();

    /** A group of clients each sending the requests {@code requests} builds, one after the other. */
    Group http(String name, int clients, Requests requests) {
        return new Group(name, clients, client -> send(http, requests.next(client)));
    }

    /** Sends {@code request} and reads its answer to the end, so that its connection goes back to the pool. */
    private static int send(CloseableHttpClient http, ClassicHttpRequest request) throws IOException {
        return http.execute(request, response -> {
            EntityUtils.consume(response.getEntity());
            return response.getCode();
        });
    }

    /** Runs every group at once for {@code duration}; returns one result per group, in order. */
    List<GroupResult> run(Duration duration, List<Group> groups) throws Exception {
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        List<List<Future<ClientResult>>> futures = new ArrayList<>();
        try (ExecutorService threads = Executors.newThreadPerTaskExecutor(Thread.ofPlatform().factory())) {
            for (Group group : groups) {
                List<Future<ClientResult>> clients = new ArrayList<>();
                for (int client = 0; client < group.clients(); client++) {
                    int index = client;
                    clients.add(threads.submit(() -> runClient(group.work(), index, end)));
                }
                futures.add(clients);
            }
            List<GroupResult> results = new ArrayList<>();
            for (int g = 0; g < groups.size(); g++) {
                Histogram latencies = new Histogram(3_600_000_000L, 3);
                Map<Integer, Long> statuses = new TreeMap<>();
                long requests = 0;
                for (Future<ClientResult> future : futures.get(g)) {
                    ClientResult client = future.get();
                    latencies.add(client.latencies());
                    client.statuses().forEach((status, count) -> statuses.merge(status, count, Long::sum));
                    requests += client.requests();
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                results.add(new GroupResult(groups.get(g).name(), groups.get(g).clients(), requests,
                        Math.min(seconds, duration.toNanos() / 1e9 + 0.5), latencies, statuses));
            }
            return results;
        }
    }

    /** Starts sending {@code perSecond} requests a second, evenly spaced, until {@link OpenLoop#stop()}. */
    OpenLoop openLoop(double perSecond, Requests requests) {
        return new OpenLoop(http, perSecond, requests);
    }

    /**
     * Requests sent at a fixed rate, each on a thread of its own however long the earlier ones take (a cached pool,
     * so a steady rate reuses a few threads and a stall adds more), from one schedule for the whole run. A latency
     * counts from when its request was due, not from when it left, so a stall delays the requests behind it in the
     * figures too (no coordinated omission), and it is grouped by the second, since the start, in which the request
     * was due.
     */
    static final class OpenLoop {

        private final long start = System.nanoTime();
        private final List<Histogram> seconds = new ArrayList<>();
        private final Map<Integer, Long> statuses = new TreeMap<>();
        private final ExecutorService threads = Executors.newCachedThreadPool();
        private final Future<Long> scheduler;
        private volatile boolean stopped;

        private OpenLoop(CloseableHttpClient http, double perSecond, Requests requests) {
            long interval = Math.max(1, Math.round(1e9 / perSecond));
            scheduler = threads.submit(() -> {
                long sent = 0;
                while (!stopped) {
                    long due = start + sent * interval;
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        Thread.sleep(Duration.ofNanos(wait));
                    }
                    ClassicHttpRequest request = requests.next((int) sent);
                    threads.submit(() -> record(due, sendCounted(http, request)));
                    sent++;
                }
                return sent;
            });
        }

        private static int sendCounted(CloseableHttpClient http, ClassicHttpRequest request) {
            try {
                return send(http, request);
            } catch (Exception e) {
                return -1;
            }
        }

        private synchronized void record(long due, int status) {
            int second = (int) ((due - start) / 1_000_000_000L);
            while (seconds.size() <= second) {
                seconds.add(new Histogram(3_600_000_000L, 3));
            }
            seconds.get(second).recordValue(Math.max(1, (System.nanoTime() - due) / 1000));
            statuses.merge(status, 1L, Long::sum);
        }

        /** Stops sending, waits for every answer, and returns what was measured. */
        Result stop() throws Exception {
            stopped = true;
            long sent = scheduler.get();
            threads.close();
            synchronized (this) {
                return new Result(sent, (System.nanoTime() - start) / 1e9, List.copyOf(seconds), new TreeMap<>(statuses));
            }
        }

        /**
         * @param seconds the latencies of the requests due in each second since the start
         */
        record Result(long requests, double elapsedSeconds, List<Histogram> seconds, Map<Integer, Long> statuses) {
        }
    }

    /** Sends every request once, {@code concurrency} at a time; returns the responses by status. */
    Map<Integer, Long> sendEach(List<ClassicHttpRequest> requests, int concurrency) throws Exception {
        Map<Integer, Long> statuses = new TreeMap<>();
        try (ExecutorService threads = Executors.newFixedThreadPool(concurrency)) {
            List<Future<Integer>> sent = new ArrayList<>();
            for (ClassicHttpRequest request : requests) {
                sent.add(threads.submit(() -> send(http, request)));
            }
            for (Future<Integer> status : sent) {
                statuses.merge(status.get(), 1L, Long::sum);
            }
        }
        return statuses;
    }

    private record ClientResult(long requests, Histogram latencies, Map<Integer, Long> statuses) {
    }

    private static ClientResult runClient(Work work, int client, long end) {
        Histogram latencies = new Histogram(3_600_000_000L, 3);
        Map<Integer, Long> statuses = new TreeMap<>();
        long count = 0;
        while (System.nanoTime() < end) {
            long sent = System.nanoTime();
            int status;
            try {
                status = work.call(client);
            } catch (Exception e) {
                status = -1;
            }
            latencies.recordValue(Math.max(1, (System.nanoTime() - sent) / 1000));
            statuses.merge(status, 1L, Long::sum);
            count++;
        }
        return new ClientResult(count, latencies, statuses);
    }
}
