package dev.onceonly.benchmarks.http;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.HdrHistogram.Histogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario f, run on its own: the service's background cleanup (the starter's {@code BackgroundCleanup}, on
 * the service's pool of 16 connections) removes a million expired records from PostgreSQL while the service keeps
 * taking first executions, a fresh key per request, through HTTP, at a fixed rate: a share of what it can take at
 * most, as a service runs below its capacity, so that the latencies say what the cleanup costs the writes rather
 * than how a saturated machine shares its cores. In one run, each step on a database made anew:
 * <ol>
 *   <li>the most the service takes is measured with closed-loop clients, which sets the rate (a share of it);</li>
 *   <li>without cleanup ({@code onceonly.cleanup.enabled=false}): the expired records are seeded, and from the
 *       seeding's commit the writes are sent at that rate for a fixed time;</li>
 *   <li>for each cleanup setting: the service starts with cleanup every second and is warmed up (nothing has
 *       expired yet); the expired records are seeded in one transaction, and from its commit the writes are sent
 *       until no expired record is left. Rows per second count from that commit (so they include up to one interval
 *       before the first batch).</li>
 * </ol>
 * The writes follow one schedule for the whole run (an open loop, latencies counted from when each was due), and
 * are grouped by the second since the seeding in which they were due. A cleanup run's writes are those due in the
 * whole seconds while expired records were left, compared with the writes due in the same seconds of the run
 * without cleanup, as what follows a large insert (autovacuum, a checkpoint) weighs on both alike then.
 */
public final class CleanupBenchmark {

    private static final Logger log = LoggerFactory.getLogger(CleanupBenchmark.class);
    private static final Duration PURGE_TIMEOUT = Duration.ofMinutes(10);

    /**
     * @param expiredRecords how many expired records are seeded, and removed
     * @param clients the closed-loop clients that measure the most the service takes
     * @param loadShare the share of that at which the writes are sent during every run
     * @param warmUp how long each service warms up before its records are seeded
     * @param withoutCleanup how long the writes are measured without cleanup
     * @param cleanups the cleanup settings measured, in order
     */
    public record Settings(long expiredRecords, int clients, double loadShare, Duration warmUp,
            Duration withoutCleanup, List<Cleanup> cleanups) {
    }

    /** One setting of {@code onceonly.cleanup.batch-size} and {@code .batch-pause}. */
    public record Cleanup(int batchSize, Duration batchPause) {

        public String label() {
            return "batch " + batchSize + ", pause " + batchPause.toMillis() + " ms";
        }

        List<String> properties() {
            return List.of("onceonly.cleanup.enabled=true", "onceonly.cleanup.interval=1s",
                    "onceonly.cleanup.batch-size=" + batchSize, "onceonly.cleanup.batch-pause=" + batchPause.toMillis()
                            + "ms");
        }
    }

    /**
     * The writes of one run.
     *
     * @param label {@code without cleanup}, or the cleanup setting
     * @param seconds how long the writes were measured
     * @param requests the writes answered in that time
     * @param p50Millis their median latency
     * @param p99Millis their 99th percentile latency
     * @param statuses responses by HTTP status (-1: no response)
     * @param purgeSeconds from the seeding's commit until no expired record was left (0 without cleanup)
     * @param rowsPerSecond expired records removed per second (0 without cleanup)
     * @param baselineP99Millis the 99th percentile latency of the run without cleanup over the same seconds since
     *     the seeding (its own p99, for that run)
     */
    public record Run(String label, double seconds, long requests, double p50Millis, double p99Millis,
            Map<Integer, Long> statuses, double purgeSeconds, double rowsPerSecond, double baselineP99Millis) {

        public double throughput() {
            return requests / seconds;
        }
    }

    /**
     * Every run, the one without cleanup first.
     *
     * @param capacity the first executions per second the service took at most, closed loop, without cleanup
     * @param rate the writes per second sent during every run
     */
    public record Results(String postgresql, Settings settings, double capacity, double rate, Run withoutCleanup,
            List<Run> cleanups) {
    }

    private final Path serviceJar;
    private final Path workDir;
    private final BenchmarkDatabase database;
    private final Settings settings;
    private final LoadDriver driver = new LoadDriver();
    private double rate;
    private double capacity;
    private Window withoutCleanup = new Window();

    public CleanupBenchmark(Path serviceJar, Path workDir, String serverUrl, Settings settings) {
        this.serviceJar = serviceJar;
        this.workDir = workDir;
        this.database = new BenchmarkDatabase(serverUrl);
        this.settings = settings;
    }

    public Results run() throws Exception {
        String postgresql = database.serverVersion();
        measureCapacity();
        Run withoutCleanup = measureWithoutCleanup();
        List<Run> cleanups = new ArrayList<>();
        for (Cleanup cleanup : settings.cleanups()) {
            cleanups.add(measure(cleanup));
        }
        return new Results(postgresql, settings, capacity, rate, withoutCleanup, List.copyOf(cleanups));
    }

    /** The most the service takes, closed loop, on a database of its own: every run then starts alike. */
    private void measureCapacity() throws Exception {
        database.recreate();
        try (ServiceProcess service = start(List.of("onceonly.cleanup.enabled=false"), "f-capacity")) {
            capacity = driver.run(Duration.ofSeconds(10), List.of(driver.http("f-capacity",
                    settings.clients(), client -> HttpBenchmark.freshKey(service)))).getFirst().throughput();
        }
        rate = settings.loadShare() * capacity;
        log.info("Scenario f: the service takes {} writes/s at most; writes are sent at {}/s",
                Math.round(capacity), Math.round(rate));
    }

    private Run measureWithoutCleanup() throws Exception {
        database.recreate();
        try (ServiceProcess service = start(List.of("onceonly.cleanup.enabled=false"), "f-without-cleanup")) {
            seed();
            LoadDriver.OpenLoop writes = writes(service);
            Thread.sleep(settings.withoutCleanup());
            withoutCleanup = new Window(writes.stop());
            int seconds = withoutCleanup.seconds();
            Run run = withoutCleanup.run("without cleanup", seconds, 0, 0, withoutCleanup.p99Millis(seconds));
            log.info("Scenario f without cleanup: {} writes/s, p99 {} ms", Math.round(run.throughput()),
                    run.p99Millis());
            return run;
        }
    }

    private Run measure(Cleanup cleanup) throws Exception {
        database.recreate();
        try (ServiceProcess service = start(cleanup.properties(), "f-batch-" + cleanup.batchSize() + "-pause-"
                + cleanup.batchPause().toMillis()); ExecutorService poller = Executors.newVirtualThreadPerTaskExecutor()) {
            long committed = seed();
            LoadDriver.OpenLoop writes = writes(service);
            long done = poller.submit(() -> database.awaitNoExpiredRecords(Duration.ofMillis(100), PURGE_TIMEOUT))
                    .get();
            Window window = new Window(writes.stop());
            double purgeSeconds = (done - committed) / 1e9;
            // The seconds that ended while expired records were left, against the same seconds without cleanup.
            int seconds = Math.max(1, (int) purgeSeconds);
            Run run = window.run(cleanup.label(), seconds, purgeSeconds, settings.expiredRecords() / purgeSeconds,
                    withoutCleanup.p99Millis(seconds));
            log.info("Scenario f, {}: {} rows/s, {} writes/s, p99 {} ms", cleanup.label(),
                    Math.round(run.rowsPerSecond()), Math.round(run.throughput()), run.p99Millis());
            return run;
        }
    }

    private ServiceProcess start(List<String> properties, String label) throws Exception {
        return HttpBenchmark.startWarm(driver, serviceJar, database, true, properties,
                workDir.resolve("service-" + label + ".log"), settings.warmUp());
    }

    private long seed() throws Exception {
        log.info("Seeding {} expired records", settings.expiredRecords());
        return database.seedExpiredRecords(settings.expiredRecords());
    }

    /** First executions at the run's rate, from now until stopped. */
    private LoadDriver.OpenLoop writes(ServiceProcess service) {
        return driver.openLoop(rate, request -> HttpBenchmark.freshKey(service));
    }

    /** What one run's writes met, by the second since the seeding in which each was due. */
    private static final class Window {

        private final LoadDriver.OpenLoop.Result writes;

        Window() {
            this(new LoadDriver.OpenLoop.Result(0, 0, List.of(), Map.of()));
        }

        Window(LoadDriver.OpenLoop.Result writes) {
            this.writes = writes;
        }

        /** Whole seconds measured. */
        int seconds() {
            return writes.seconds().size();
        }

        private Histogram first(int seconds) {
            Histogram first = new Histogram(3_600_000_000L, 3);
            writes.seconds().stream().limit(Math.max(1, seconds)).forEach(first::add);
            return first;
        }

        /** The 99th percentile of the requests due in the first {@code seconds} seconds. */
        double p99Millis(int seconds) {
            return first(seconds).getValueAtPercentile(99) / 1000.0;
        }

        Run run(String label, int seconds, double purgeSeconds, double rowsPerSecond, double baselineP99Millis) {
            Histogram measured = first(seconds);
            return new Run(label, seconds, measured.getTotalCount(), measured.getValueAtPercentile(50) / 1000.0,
                    measured.getValueAtPercentile(99) / 1000.0, new TreeMap<>(writes.statuses()), purgeSeconds,
                    rowsPerSecond, baselineP99Millis);
        }
    }
}
