package dev.onceonly.benchmarks.http;

import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP scenarios, all against the reference service's create-order endpoint on the local PostgreSQL:
 * <ul>
 *   <li>(a) idempotency switched off ({@code onceonly.enabled=false}): the baseline;</li>
 *   <li>(b) first executions, a fresh key per request;</li>
 *   <li>(c) replays of keys that already have an outcome;</li>
 *   <li>(d) a duplicate storm, 200 clients on one key (a new key every 250 ms, so there is always a first
 *       execution in flight), while other clients send fresh keys;</li>
 *   <li>(e) first executions with 10,000 and then 5,000,000 records in the table;</li>
 *   <li>(g) first executions with the Redis fast layer (the shared Redis on 127.0.0.1:6379), written once
 *       ({@code onceonly.redis.write-once=true});</li>
 *   <li>(h) replays of another instance's outcomes, on an instance that never saw them and keeps none in its
 *       memory: answered from Redis;</li>
 *   <li>(i) the storm of (d), with Redis.</li>
 * </ul>
 * (b) to (e) run without Redis ({@code onceonly.redis.enabled=false}), so that (g) to (i) show what it adds.
 */
public final class HttpBenchmark {

    private static final Logger log = LoggerFactory.getLogger(HttpBenchmark.class);
    private static final String BODY = "{\"skuId\": 42, \"quantity\": 2}";
    private static final String AUTHORIZATION = "Basic " + Base64.getEncoder().encodeToString(
            "alice:alice-pass".getBytes(StandardCharsets.UTF_8));
    private static final int STORM_CLIENTS = 200;
    private static final int REPLAY_KEYS = 2_000;
    /** The database alone decides. */
    private static final List<String> WITHOUT_REDIS = List.of("onceonly.redis.enabled=false");

    /**
     * @param clientCounts the numbers of concurrent clients of (a) to (c)
     * @param warmUp how long each measurement warms up first
     * @param round how long one round lasts
     * @param rounds rounds per measurement
     * @param largeTable the record count of the large-table run of (e)
     */
    public record Settings(List<Integer> clientCounts, Duration warmUp, Duration round, int rounds,
            long largeTable) {
    }

    /** Everything measured, by scenario. */
    public record Results(List<Measurement> measurements, Map<String, Object> facts) {
    }

    private final Path serviceJar;
    private final Path workDir;
    private final BenchmarkDatabase database;
    private final Settings settings;
    private final LoadDriver driver = new LoadDriver();
    private final List<Measurement> measurements = new ArrayList<>();
    private final Map<String, Object> facts = new LinkedHashMap<>();

    public HttpBenchmark(Path serviceJar, Path workDir, String serverUrl, Settings settings) {
        this.serviceJar = serviceJar;
        this.workDir = workDir;
        this.database = new BenchmarkDatabase(serverUrl);
        this.settings = settings;
    }

    public Results run() throws Exception {
        facts.put("postgresql", database.serverVersion());
        database.recreate();
        measureBaseline();
        try (ServiceProcess idempotent = start(true, "b-d", WITHOUT_REDIS)) {
            for (int clients : settings.clientCounts()) {
                measure("b", idempotent, clients, HttpBenchmark::freshKey);
            }
            facts.put("b.hotUpdates", database.hotUpdates());
            List<String> keys = createOrders(idempotent, REPLAY_KEYS);
            for (int clients : settings.clientCounts()) {
                measure("c", idempotent, clients, service -> order(service,
                        keys.get(ThreadLocalRandom.current().nextInt(keys.size()))));
            }
            measureStorm("d", idempotent, settings.clientCounts().getLast());
        }
        measureRedis();
        measureTableSize();
        return new Results(List.copyOf(measurements), facts);
    }

    /**
     * The baseline, first executions without Redis and the Redis scenarios, (a), (b), (g), (h) and (i): for a
     * quick look at the fast layer.
     */
    public Results runRedisOnly() throws Exception {
        facts.put("postgresql", database.serverVersion());
        database.recreate();
        measureBaseline();
        try (ServiceProcess idempotent = start(true, "b", WITHOUT_REDIS)) {
            for (int clients : settings.clientCounts()) {
                measure("b", idempotent, clients, HttpBenchmark::freshKey);
            }
        }
        measureRedis();
        return new Results(List.copyOf(measurements), facts);
    }

    private void measureBaseline() throws Exception {
        try (ServiceProcess plain = start(false, "a", WITHOUT_REDIS)) {
            for (int clients : settings.clientCounts()) {
                measure("a", plain, clients, HttpBenchmark::freshKey);
            }
        }
    }

    /**
     * Two instances in front of one Redis, under keys of this run's own that expire soon: the first runs (g) and
     * the storm, the second replays the first's outcomes with its memory cache off, so Redis answers every replay.
     */
    private void measureRedis() throws Exception {
        String prefix = "onceonly.redis.prefix=bench-" + UUID.randomUUID();
        // The setting is the whole service's; the benchmark calls only the orders endpoint, whose work is all in its
        // transaction (the checkout's form tokens, which rule it out, are not called here).
        List<String> redis = List.of(prefix, "onceonly.redis.max-time-to-live=5m", "onceonly.redis.write-once=true");
        try (ServiceProcess first = start(true, "g-i", redis);
                ServiceProcess second = start(true, "h", List.of(prefix, "onceonly.redis.max-time-to-live=5m",
                        "onceonly.replay-cache.time-to-live=0s"))) {
            for (int clients : settings.clientCounts()) {
                measure("g", first, clients, HttpBenchmark::freshKey);
            }
            List<String> keys = createOrders(first, REPLAY_KEYS);
            for (int clients : settings.clientCounts()) {
                measure("h", second, clients, service -> order(service,
                        keys.get(ThreadLocalRandom.current().nextInt(keys.size()))));
            }
            measureStorm("i", first, settings.clientCounts().getLast());
        }
    }

    private ServiceProcess start(boolean idempotency, String label, List<String> properties) throws Exception {
        List<String> all = new ArrayList<>(properties);
        all.add("onceonly.cleanup.enabled=false");
        return startWarm(driver, serviceJar, database, idempotency, all, workDir.resolve("service-" + label + ".log"),
                settings.warmUp().multipliedBy(3));
    }

    /** Starts the service and warms its JIT up with first executions before anything is measured. */
    static ServiceProcess startWarm(LoadDriver driver, Path serviceJar, BenchmarkDatabase database,
            boolean idempotency, List<String> properties, Path serviceLog, Duration warmUp) throws Exception {
        log.info("Starting the service (idempotency {}, {}), log {}", idempotency ? "on" : "off",
                properties, serviceLog.getFileName());
        ServiceProcess service = ServiceProcess.start(serviceJar, database.url(), idempotency, properties,
                serviceLog);
        driver.run(warmUp, List.of(new LoadDriver.Group("warm-up", 16, client -> freshKey(service))));
        return service;
    }

    static HttpRequest freshKey(ServiceProcess service) {
        return order(service, UUID.randomUUID().toString());
    }

    private static HttpRequest order(ServiceProcess service, String key) {
        return HttpRequest.newBuilder(service.uri("/api/orders"))
                .header("Authorization", AUTHORIZATION)
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", key)
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(BODY))
                .build();
    }

    @FunctionalInterface
    private interface RequestFor {
        HttpRequest next(ServiceProcess service);
    }

    private Measurement measure(String scenario, ServiceProcess service, int clients, RequestFor requests)
            throws Exception {
        List<LoadDriver.Group> groups = List.of(new LoadDriver.Group(scenario, clients,
                client -> requests.next(service)));
        log.info("Scenario {} with {} clients: warming up for {}", scenario, clients, settings.warmUp());
        driver.run(settings.warmUp(), groups);
        List<Measurement.Round> rounds = new ArrayList<>();
        for (int round = 1; round <= settings.rounds(); round++) {
            LoadDriver.GroupResult result = driver.run(settings.round(), groups).getFirst();
            log.info("Scenario {} with {} clients, round {}: {} req/s, p50 {} ms, p99 {} ms, statuses {}", scenario,
                    clients, round, Math.round(result.throughput()), result.p50Millis(), result.p99Millis(),
                    result.statuses());
            rounds.add(Measurement.round(result));
        }
        Measurement measurement = new Measurement(scenario, clients, rounds);
        measurements.add(measurement);
        return measurement;
    }

    /** Creates an order for each of {@code count} new keys, so that scenario (c) can replay them. */
    private List<String> createOrders(ServiceProcess service, int count) throws Exception {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            keys.add(UUID.randomUUID().toString());
        }
        Map<Integer, Long> statuses = driver.sendEach(keys.stream().map(key -> order(service, key)).toList(), 16);
        if (statuses.keySet().stream().anyMatch(status -> status != 201)) {
            throw new IllegalStateException("preparing the replay keys failed: " + statuses);
        }
        return keys;
    }

    private void measureStorm(String scenario, ServiceProcess service, int others) throws Exception {
        long start = System.nanoTime();
        String prefix = UUID.randomUUID().toString();
        LoadDriver.Group storm = new LoadDriver.Group("storm", STORM_CLIENTS, client -> order(service,
                prefix + "-" + (System.nanoTime() - start) / 250_000_000L));
        LoadDriver.Group fresh = new LoadDriver.Group(scenario, others, client -> freshKey(service));
        log.info("Scenario {}: {} storm clients on one key, {} clients with fresh keys", scenario, STORM_CLIENTS,
                others);
        driver.run(settings.warmUp(), List.of(storm, fresh));
        List<Measurement.Round> freshRounds = new ArrayList<>();
        List<Measurement.Round> stormRounds = new ArrayList<>();
        for (int round = 1; round <= settings.rounds(); round++) {
            List<LoadDriver.GroupResult> results = driver.run(settings.round(), List.of(storm, fresh));
            log.info("Scenario {}, round {}: others {} req/s p99 {} ms; storm {} req/s, statuses {}", scenario,
                    round, Math.round(results.get(1).throughput()), results.get(1).p99Millis(),
                    Math.round(results.get(0).throughput()), results.get(0).statuses());
            stormRounds.add(Measurement.round(results.get(0)));
            freshRounds.add(Measurement.round(results.get(1)));
        }
        measurements.add(new Measurement(scenario, others, freshRounds));
        measurements.add(new Measurement(scenario + "-storm", STORM_CLIENTS, stormRounds));
    }

    private void measureTableSize() throws Exception {
        int clients = settings.clientCounts().getLast();
        database.recreate();
        try (ServiceProcess service = start(true, "e", WITHOUT_REDIS)) {
            // The warm-up wrote records of its own; start the small table from nothing.
            database.truncate();
            database.seedRecords(10_000);
            facts.put("e.small.records", database.records());
            measure("e-10k", service, clients, HttpBenchmark::freshKey);
            log.info("Seeding {} records", settings.largeTable());
            long seeding = System.nanoTime();
            database.seedRecords(settings.largeTable());
            facts.put("e.large.seedSeconds", (System.nanoTime() - seeding) / 1e9);
            facts.put("e.large.records", database.records());
            measure("e-large", service, clients, HttpBenchmark::freshKey);
        }
    }
}
