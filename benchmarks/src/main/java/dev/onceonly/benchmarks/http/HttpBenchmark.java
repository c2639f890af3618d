package dev.onceonly.benchmarks.http;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.support.ClassicRequestBuilder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP scenarios, all against the reference service's create-order endpoint on the local PostgreSQL:
 * <ul>
 *   <li>(a) idempotency switched off ({@code onceonly.enabled=false}): the baseline;</li>
 *   <li>(b) first executions, a fresh key per request;</li>
 *   <li>(c) replays of keys that already have an outcome;</li>
 *   <li>(d) a duplicate storm, open loop: 1,000 duplicates a second on one key (a new key every 250 ms, so there is
 *       always a first execution in flight), while other clients send fresh keys;</li>
 *   <li>(e) first executions with 10,000 and with 5,000,000 records in the table: two instances side by side, each on
 *       a database of its own;</li>
 *   <li>(gc) first executions with the Redis fast layer (the shared Redis on 127.0.0.1:6379), the claim first as
 *       without it (the default);</li>
 *   <li>(g) first executions with the Redis fast layer, written once ({@code onceonly.redis.write-once=true});</li>
 *   <li>(h) replays of another instance's outcomes, on an instance that never saw them and keeps none in its
 *       memory: answered from Redis;</li>
 *   <li>(i) the storm of (d), with Redis.</li>
 * </ul>
 * (b) to (e) run without Redis ({@code onceonly.redis.enabled=false}), so that (g) to (i) show what it adds; (a),
 * (b), (gc) and (g) take turns in the same rounds. Each round also counts what the service sent its database and
 * Redis ({@link Traffic}).
 */
public final class HttpBenchmark {

    private static final Logger log = LoggerFactory.getLogger(HttpBenchmark.class);
    private static final String BODY = "{\"skuId\": 42, \"quantity\": 2}";
    /** As the earlier reports' driver sent it, without a charset parameter. */
    private static final ContentType JSON = ContentType.create("application/json");
    private static final String AUTHORIZATION = "Basic " + Base64.getEncoder().encodeToString(
            "alice:alice-pass".getBytes(StandardCharsets.UTF_8));
    /** Duplicates a second in a storm, at most. */
    private static final int STORM_RATE = 1_000;
    /** The largest share of the replays a second the instance answers (closed loop) that a storm sends. */
    private static final double STORM_SHARE = 0.25;
    private static final int REPLAY_KEYS = 2_000;
    private static final int PROFILE_ROUNDS = 3;
    /** How long a warm-up runs, past its minimum, between two looks at the service's JIT. */
    private static final Duration JIT_WINDOW = Duration.ofSeconds(5);
    /** The longest a warm-up waits for the service's JIT to settle; past it, the measurement goes ahead, logged. */
    private static final Duration JIT_LIMIT = Duration.ofMinutes(3);
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

    /**
     * Everything measured, by scenario.
     *
     * @param profiles the service's profiles by scenario and client count ({@code b/16})
     */
    public record Results(List<Measurement> measurements, Map<String, ServiceProfile> profiles,
            Map<String, Object> facts) {
    }

    private final Path serviceJar;
    private final Path workDir;
    private final BenchmarkDatabase database;
    private final Settings settings;
    private final LoadDriver driver = new LoadDriver();
    private final List<Measurement> measurements = new ArrayList<>();
    private final Map<String, ServiceProfile> profiles = new LinkedHashMap<>();
    private final Map<String, Object> facts = new LinkedHashMap<>();

    public HttpBenchmark(Path serviceJar, Path workDir, String serverUrl, Settings settings) {
        this.serviceJar = serviceJar;
        this.workDir = workDir;
        this.database = new BenchmarkDatabase(serverUrl);
        this.settings = settings;
    }

    public Results run() throws Exception {
        facts.put("postgresql", database.serverVersion());
        facts.put("serviceHeap", String.join(" ", ServiceProcess.HEAP));
        database.recreate();
        String prefix = redisPrefix();
        try (ServiceProcess plain = start(false, "a", WITHOUT_REDIS);
                ServiceProcess idempotent = start(true, "b-d", WITHOUT_REDIS);
                ServiceProcess claimFirst = start(true, "gc", withRedis(prefix, false));
                ServiceProcess writeOnce = start(true, "g-i", withRedis(prefix, true))) {
            measureFirstExecutions(new Services(plain, idempotent, claimFirst, writeOnce),
                    List.of(DatabaseFloor.Transaction.values()));
            facts.put("b.hotUpdates", database.hotUpdates());
            List<String> keys = createOrders(idempotent, REPLAY_KEYS);
            for (int clients : settings.clientCounts()) {
                measureInterleaved(List.of(Load.withProfile(driver.http("c", clients, client -> order(idempotent,
                        keys.get(ThreadLocalRandom.current().nextInt(keys.size())))), idempotent)));
            }
            measureStorm("d", idempotent, settings.clientCounts().getLast(), "c");
            measureRedisReplays(writeOnce, prefix);
        }
        measureTableSize();
        return results();
    }

    /**
     * What one Redis round trip costs with no service around it ({@link RedisRoundTrip}), then the first executions
     * with and without Redis, (a), (b), (gc) and (g), then the Redis replays and storm, (h) and (i): for a look at the
     * fast layer alone. Last, once the services have stopped, the raw transactions of (a), (b) and (g) in rounds of
     * their own, so that their writes, two to three times as fast as the services', and the autovacuum they call
     * for do not weigh on the services' rounds.
     */
    public Results runRedisOnly() throws Exception {
        try (RedisRoundTrip roundTrip = new RedisRoundTrip("127.0.0.1", 6379)) {
            Map<String, Map<String, Double>> costs = new LinkedHashMap<>();
            roundTrip.measure().forEach((call, cost) -> costs.put(call, Map.of("callerMicros", cost.callerMicros(),
                    "redisMicros", cost.redisMicros(), "callsPerSecond", cost.callsPerSecond())));
            facts.put("redisRoundTrip", costs);
        }
        facts.put("postgresql", database.serverVersion());
        facts.put("serviceHeap", String.join(" ", ServiceProcess.HEAP));
        database.recreate();
        String prefix = redisPrefix();
        try (ServiceProcess plain = start(false, "a", WITHOUT_REDIS);
                ServiceProcess idempotent = start(true, "b", WITHOUT_REDIS);
                ServiceProcess claimFirst = start(true, "gc", withRedis(prefix, false));
                ServiceProcess writeOnce = start(true, "g-i", withRedis(prefix, true))) {
            measureFirstExecutions(new Services(plain, idempotent, claimFirst, writeOnce), List.of());
            measureRedisReplays(writeOnce, prefix);
        }
        measureFloors(DatabaseFloor.withoutVariants());
        facts.put("floorsApart", true);
        return results();
    }

    /** Keys of this run's own in the shared Redis, which expire soon. */
    private static String redisPrefix() {
        return "onceonly.redis.prefix=bench-" + UUID.randomUUID();
    }

    /**
     * The setting is the whole service's; the benchmark calls only the orders endpoint, whose work is all in its
     * transaction (the checkout's form tokens, which rule write-once out, are not called here).
     */
    private static List<String> withRedis(String prefix, boolean writeOnce) {
        return List.of(prefix, "onceonly.redis.max-time-to-live=5m", "onceonly.redis.write-once=" + writeOnce);
    }

    /** The services whose first executions take turns: without idempotency, without Redis, and with it both ways. */
    private record Services(ServiceProcess plain, ServiceProcess idempotent, ServiceProcess claimFirst,
            ServiceProcess writeOnce) {
    }

    private Results results() {
        return new Results(List.copyOf(measurements), new LinkedHashMap<>(profiles), facts);
    }

    /** The database's {@code floors} alone, their rounds interleaved, at every client count but one. */
    private void measureFloors(List<DatabaseFloor.Transaction> floors) throws Exception {
        try (DatabaseFloor raw = new DatabaseFloor(database.url(), ServiceProcess.POOL_SIZE)) {
            for (int clients : settings.clientCounts().subList(1, settings.clientCounts().size())) {
                measureInterleaved(floorLoads(raw, floors, clients));
            }
        }
    }

    private static List<Load> floorLoads(DatabaseFloor raw, List<DatabaseFloor.Transaction> floors, int clients) {
        return floors.stream().map(transaction -> new Load(new LoadDriver.Group(transaction.scenario(), clients,
                raw.work(transaction)), null, false)).toList();
    }

    /**
     * (a) and (b) at every client count, (gc) and (g) too at every count but one, their rounds interleaved so that a
     * drift of the machine (autovacuum, a checkpoint, a growing table) weighs on all alike; and the {@code floors} of
     * the database ({@link DatabaseFloor}) too, in the same rounds, at every client count but one.
     */
    private void measureFirstExecutions(Services services, List<DatabaseFloor.Transaction> floors)
            throws Exception {
        // No pool of the floor's (16 idle connections) beside the services when it has nothing to run.
        try (DatabaseFloor raw = floors.isEmpty() ? null
                : new DatabaseFloor(database.url(), ServiceProcess.POOL_SIZE)) {
            for (int clients : settings.clientCounts()) {
                List<Load> groups = new ArrayList<>(List.of(
                        Load.withProfile(driver.http("a", clients, client -> freshKey(services.plain())),
                                services.plain()),
                        Load.withProfile(driver.http("b", clients, client -> freshKey(services.idempotent())),
                                services.idempotent())));
                if (clients > 1) {
                    groups.add(Load.withProfile(driver.http("gc", clients, client -> freshKey(
                            services.claimFirst())), services.claimFirst()));
                    groups.add(Load.withProfile(driver.http("g", clients, client -> freshKey(services.writeOnce())),
                            services.writeOnce()));
                    if (raw != null) {
                        groups.addAll(floorLoads(raw, floors, clients));
                    }
                }
                measureInterleaved(groups);
            }
        }
    }

    /**
     * A second instance in front of the same Redis replays the first's outcomes, (h), with its memory cache off, so
     * Redis answers every replay; then the storm of (d) on the first, with Redis, (i).
     */
    private void measureRedisReplays(ServiceProcess first, String prefix) throws Exception {
        try (ServiceProcess second = start(true, "h", List.of(prefix, "onceonly.redis.max-time-to-live=5m",
                "onceonly.replay-cache.time-to-live=0s"))) {
            List<String> keys = createOrders(first, REPLAY_KEYS);
            for (int clients : settings.clientCounts()) {
                measure("h", second, clients, service -> order(service,
                        keys.get(ThreadLocalRandom.current().nextInt(keys.size()))));
            }
        }
        measureStorm("i", first, settings.clientCounts().getLast(), "h");
    }

    private ServiceProcess start(boolean idempotency, String label, List<String> properties) throws Exception {
        return start(database, idempotency, label, properties);
    }

    private ServiceProcess start(BenchmarkDatabase on, boolean idempotency, String label, List<String> properties)
            throws Exception {
        List<String> all = new ArrayList<>(properties);
        all.add("onceonly.cleanup.enabled=false");
        return startWarm(driver, serviceJar, on, idempotency, all, workDir.resolve("service-" + label + ".log"),
                settings.warmUp().multipliedBy(3));
    }

    /**
     * Starts the service and warms it up with first executions, at least for {@code warmUp} and until its JIT has
     * settled, before anything is measured.
     */
    static ServiceProcess startWarm(LoadDriver driver, Path serviceJar, BenchmarkDatabase database,
            boolean idempotency, List<String> properties, Path serviceLog, Duration warmUp) throws Exception {
        log.info("Starting the service (idempotency {}, {}), log {}", idempotency ? "on" : "off",
                properties, serviceLog.getFileName());
        ServiceProcess service = ServiceProcess.start(serviceJar, database.url(), idempotency, properties,
                serviceLog);
        try {
            warmUp(driver, driver.http("warm-up", 16, client -> freshKey(service)), service, warmUp);
        } catch (Exception | Error e) {
            service.close();
            throw e;
        }
        return service;
    }

    /** When a warm-up of a service ends past its minimum, in words, for the report. */
    public static String warmUpRule() {
        return String.format(Locale.ROOT, "two %d s windows in a row that each compiled fewer than %.2f %% of the "
                + "methods compiled so far, or %d minutes", JIT_WINDOW.toSeconds(), JitSettling.SETTLED_SHARE * 100,
                JIT_LIMIT.toMinutes());
    }

    /**
     * Runs {@code group} for {@code minimum}, then, if it loads a service, window after window until that service's
     * JIT has settled ({@link JitSettling}), for at most {@link #JIT_LIMIT} more; returns how long it ran.
     */
    static Duration warmUp(LoadDriver driver, LoadDriver.Group group, @Nullable ServiceProcess service,
            Duration minimum) throws Exception {
        long start = System.nanoTime();
        driver.run(minimum, List.of(group));
        if (service != null) {
            JitSettling jit = new JitSettling();
            boolean settled = jit.settledAt(service.compilations());
            long limit = System.nanoTime() + JIT_LIMIT.toNanos();
            while (!settled && System.nanoTime() < limit) {
                driver.run(JIT_WINDOW, List.of(group));
                settled = jit.settledAt(service.compilations());
            }
            if (!settled) {
                log.warn("{} with {} clients: the service's JIT was still compiling after {} of warm-up; measuring"
                        + " anyway", group.name(), group.clients(), Duration.ofNanos(System.nanoTime() - start));
            }
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        log.info("{} with {} clients warmed up for {} s", group.name(), group.clients(), took.toSeconds());
        return took;
    }

    static ClassicHttpRequest freshKey(ServiceProcess service) {
        return order(service, UUID.randomUUID().toString());
    }

    private static ClassicHttpRequest order(ServiceProcess service, String key) {
        return ClassicRequestBuilder.post(service.uri("/api/orders"))
                .setHeader("Authorization", AUTHORIZATION)
                .setHeader("Idempotency-Key", key)
                .setEntity(BODY, JSON)
                .build();
    }

    /**
     * A group to measure; the service it loads, whose CPU time each round counts ({@code null} for load that is not
     * a service's); and whether that service is profiled in more rounds after the measured ones, at every client
     * count but one.
     */
    private record Load(LoadDriver.Group group, @Nullable ServiceProcess service, boolean profiled) {

        static Load withProfile(LoadDriver.Group group, ServiceProcess service) {
            return new Load(group, service, true);
        }

        static Load of(LoadDriver.Group group, ServiceProcess service) {
            return new Load(group, service, false);
        }
    }

    private Measurement measure(String scenario, ServiceProcess service, int clients, RequestFor requests)
            throws Exception {
        return measureInterleaved(List.of(Load.of(driver.http(scenario, clients, client -> requests.next(service)),
                service))).getFirst();
    }

    @FunctionalInterface
    private interface RequestFor {
        ClassicHttpRequest next(ServiceProcess service);
    }

    /**
     * Warms every group up, then runs the rounds, in each round every group alone in turn: round 1 of each, then
     * round 2 of each, and so on. Each round also counts the CPU time of PostgreSQL, of the group's service and of
     * the whole machine.
     */
    private List<Measurement> measureInterleaved(List<Load> groups) throws Exception {
        return measureInterleaved(groups, settings.warmUp());
    }

    private List<Measurement> measureInterleaved(List<Load> groups, Duration warmUp) throws Exception {
        List<List<Measurement.Round>> rounds = new ArrayList<>();
        for (Load load : groups) {
            LoadDriver.Group group = load.group();
            Duration took = warmUp(driver, group, load.service(), warmUp);
            facts.put("warmUp." + group.name() + "/" + group.clients(), took.toSeconds());
            rounds.add(new ArrayList<>());
        }
        for (int round = 1; round <= settings.rounds(); round++) {
            for (int g = 0; g < groups.size(); g++) {
                Load load = groups.get(g);
                LoadDriver.Group group = load.group();
                ServiceProcess service = load.service();
                Traffic before = service == null ? null : Traffic.read(service);
                ProcessCpu.Clocks start = ProcessCpu.Clocks.read(service);
                LoadDriver.GroupResult result = driver.run(settings.round(), List.of(group)).getFirst();
                ProcessCpu.Clocks spent = ProcessCpu.Clocks.read(service).since(start);
                Traffic.PerRequest traffic = service == null || before == null ? null
                        : Traffic.read(service).perRequestSince(before, result.requests());
                Measurement.Round measured = Measurement.round(result, spent, traffic);
                log.info("Scenario {} with {} clients, round {}: {} req/s, p50 {} ms, p99 {} ms, CPU ms/request:"
                        + " database {}, service {}, machine {}; statuses {}", group.name(), group.clients(), round,
                        Math.round(result.throughput()), result.p50Millis(), result.p99Millis(),
                        measured.databaseCpuMillis(), measured.serviceCpuMillis(), measured.machineCpuMillis(),
                        result.statuses());
                rounds.get(g).add(measured);
            }
        }
        List<Measurement> measured = new ArrayList<>();
        for (int g = 0; g < groups.size(); g++) {
            LoadDriver.Group group = groups.get(g).group();
            Measurement measurement = new Measurement(group.name(), group.clients(), rounds.get(g));
            measurements.add(measurement);
            measured.add(measurement);
        }
        List<Load> profiled = groups.stream()
                .filter(load -> load.service() != null && load.profiled() && load.group().clients() > 1).toList();
        if (!profiled.isEmpty()) {
            profile(profiled);
        }
        return measured;
    }

    /**
     * {@value #PROFILE_ROUNDS} more rounds of each group, with its service under the flight recorder: together long
     * enough for tens of young collections, whose mean pause a handful would leave to chance. The groups take turns
     * round by round, in an order that alternates (a, b, then b, a, …), and each recording counts its own service's
     * rounds only, so that a slow stretch of this shared machine weighs on every profile alike, as in the measured
     * rounds; profiled one after the other, the profiles that the report compares (b's pauses against a's) came
     * from different minutes.
     */
    private void profile(List<Load> loads) throws Exception {
        Map<Load, ServiceProfile.Recording> recordings = new LinkedHashMap<>();
        for (Load load : loads) {
            recordings.put(load, ServiceProfile.start(Objects.requireNonNull(load.service()),
                    workDir.resolve("profile-" + load.group().name() + "-" + load.group().clients() + ".jfr")));
        }
        for (int round = 0; round < PROFILE_ROUNDS; round++) {
            for (Load load : round % 2 == 0 ? loads : loads.reversed()) {
                ServiceProfile.Recording.Turn turn = recordings.get(load).begin();
                turn.end(driver.run(settings.round(), List.of(load.group())).getFirst().requests());
            }
        }
        for (Map.Entry<Load, ServiceProfile.Recording> recorded : recordings.entrySet()) {
            String name = recorded.getKey().group().name() + "/" + recorded.getKey().group().clients();
            ServiceProfile profile = recorded.getValue().stop();
            log.info("Profile {}: {} ms CPU and {} bytes allocated per request, young pauses {}", name,
                    profile.cpuMillisPerRequest(), Math.round(profile.allocatedBytesPerRequest()),
                    profile.youngPauses());
            profiles.put(name, profile);
        }
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

    /**
     * The storm, open loop: duplicates arrive at a fixed rate on one key (a new one every 250 ms, so a first
     * execution is always in flight), whatever the answers, while {@code others} clients send fresh keys closed
     * loop. Each round runs the other clients twice on the same instance, first alone ({@code <scenario>-none}), then
     * during the storm: their p99 with the storm over their p99 without it is what a storm costs everyone else,
     * measured side by side, as every other ratio here is. The rate is {@value #STORM_RATE} a second, or a quarter
     * of the replays a second the instance answered in {@code replays} (at as many clients) if that is less: a storm
     * beyond what the machine can answer measures the overload, not the storm.
     *
     * <p>What a duplicate costs is what a storm round cost beyond its other clients' requests at what each cost in
     * the round without the storm, per duplicate sent: by the machine, the service, PostgreSQL and the load driver,
     * each the median of the rounds on its own ({@code <scenario>.duplicateCpu}), and the share of the machine's CPU
     * that went to the duplicates ({@code <scenario>.stormShare}).
     */
    private void measureStorm(String scenario, ServiceProcess service, int others, String replays) throws Exception {
        double capacity = measurements.stream().filter(m -> m.scenario().equals(replays) && m.clients() == others)
                .mapToDouble(Measurement::medianThroughput).findFirst().orElseThrow();
        int rate = (int) Math.min(STORM_RATE, Math.round(STORM_SHARE * capacity));
        facts.put(scenario + ".stormRate", rate);
        long start = System.nanoTime();
        String prefix = UUID.randomUUID().toString();
        LoadDriver.Requests storm = sent -> order(service, prefix + "-" + (System.nanoTime() - start) / 250_000_000L);
        LoadDriver.Group fresh = driver.http(scenario, others, client -> freshKey(service));
        log.info("Scenario {}: {} duplicates/s on one key, {} clients with fresh keys", scenario, rate, others);
        LoadDriver.OpenLoop warmUp = driver.openLoop(rate, storm);
        driver.run(settings.warmUp(), List.of(fresh));
        warmUp.stop();
        List<Measurement.Round> quietRounds = new ArrayList<>();
        List<Measurement.Round> freshRounds = new ArrayList<>();
        List<Measurement.Round> stormRounds = new ArrayList<>();
        List<DuplicateCost> costs = new ArrayList<>();
        for (int round = 1; round <= settings.rounds(); round++) {
            ProcessCpu.Clocks quietStart = ProcessCpu.Clocks.read(service);
            LoadDriver.GroupResult quiet = driver.run(settings.round(), List.of(fresh)).getFirst();
            Measurement.Round quietRound = Measurement.round(quiet, ProcessCpu.Clocks.read(service).since(quietStart),
                    null);
            LoadDriver.OpenLoop duplicates = driver.openLoop(rate, storm);
            ProcessCpu.Clocks stormStart = ProcessCpu.Clocks.read(service);
            LoadDriver.GroupResult result = driver.run(settings.round(), List.of(fresh)).getFirst();
            ProcessCpu.Clocks spent = ProcessCpu.Clocks.read(service).since(stormStart);
            Measurement.Round stormRound = Measurement.round(duplicates.stop());
            DuplicateCost cost = DuplicateCost.of(spent, result.requests(), quietRound, rate * result.seconds());
            log.info("Scenario {}, round {}: others {} req/s p99 {} ms alone, {} req/s p99 {} ms during the storm; "
                    + "storm {} req/s p99 {} ms, statuses {}; a duplicate cost {}", scenario, round,
                    Math.round(quiet.throughput()), quiet.p99Millis(), Math.round(result.throughput()),
                    result.p99Millis(), Math.round(stormRound.throughput()), stormRound.p99Millis(),
                    stormRound.statuses(), cost);
            quietRounds.add(quietRound);
            freshRounds.add(Measurement.round(result));
            stormRounds.add(stormRound);
            costs.add(cost);
        }
        measurements.add(new Measurement(scenario + "-none", others, quietRounds));
        measurements.add(new Measurement(scenario, others, freshRounds));
        measurements.add(new Measurement(scenario + "-storm", rate, stormRounds));
        DuplicateCost cost = DuplicateCost.median(costs);
        facts.put(scenario + ".duplicateCpu", cost.asMap());
        facts.put(scenario + ".stormShare", cost.machineShare());
    }

    /**
     * What one duplicate of a storm round cost, in CPU ms: the machine, the service, PostgreSQL and the load driver;
     * and the share of the machine's CPU over the round that went to the duplicates.
     */
    record DuplicateCost(double machine, double service, double database, double driver,
            double machineShare) {

        /**
         * The cost of a storm round ({@code spent}) beyond its {@code others} requests at what each cost in the
         * round without the storm ({@code quiet}), spread over the {@code duplicates} sent meanwhile.
         */
        static DuplicateCost of(ProcessCpu.Clocks spent, long others, Measurement.Round quiet, double duplicates) {
            double machine = beyond(ProcessCpu.millis(spent.machine()), others, quiet.machineCpuMillis());
            return new DuplicateCost(machine / duplicates,
                    beyond(ProcessCpu.millis(Objects.requireNonNull(spent.service())), others,
                            quiet.serviceCpuMillis()) / duplicates,
                    beyond(ProcessCpu.millis(spent.database()), others, quiet.databaseCpuMillis()) / duplicates,
                    beyond(ProcessCpu.millis(spent.driver()), others, quiet.driverCpuMillis()) / duplicates,
                    machine / ProcessCpu.millis(spent.machine()));
        }

        private static double beyond(double spentMillis, long others, @Nullable Double perRequest) {
            return spentMillis - others * Objects.requireNonNull(perRequest);
        }

        static DuplicateCost median(List<DuplicateCost> costs) {
            return new DuplicateCost(Measurement.median(costs.stream().map(DuplicateCost::machine).toList()),
                    Measurement.median(costs.stream().map(DuplicateCost::service).toList()),
                    Measurement.median(costs.stream().map(DuplicateCost::database).toList()),
                    Measurement.median(costs.stream().map(DuplicateCost::driver).toList()),
                    Measurement.median(costs.stream().map(DuplicateCost::machineShare).toList()));
        }

        Map<String, Double> asMap() {
            Map<String, Double> cost = new LinkedHashMap<>();
            cost.put("machine", machine);
            cost.put("service", service);
            cost.put("database", database);
            cost.put("driver", driver);
            return cost;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%.3f ms of the machine (service %.3f, database %.3f, driver %.3f), "
                    + "%.0f %% of the machine", machine, service, database, driver, 100 * machineShare);
        }
    }

    /**
     * (e): one instance on a record table of 10,000 records and one on a table of {@code largeTable}, each on a
     * database of its own, measured in interleaved rounds as (a) and (b) are. Measured one after the other on one
     * instance, as they once were, the ratio also held what the JIT had not finished before the first measurement
     * and what the machine did in between: 1.32 in one run, 1.01 in the next, on the same machine.
     */
    private void measureTableSize() throws Exception {
        int clients = settings.clientCounts().getLast();
        BenchmarkDatabase large = database.sibling("large");
        database.recreate();
        large.recreate();
        try (ServiceProcess small = start(database, true, "e-10k", WITHOUT_REDIS);
                ServiceProcess big = start(large, true, "e-large", WITHOUT_REDIS)) {
            // The warm-ups wrote records of their own; start both tables from nothing.
            database.truncate();
            database.seedRecords(10_000);
            facts.put("e.small.records", database.records());
            large.truncate();
            log.info("Seeding {} records", settings.largeTable());
            long seeding = System.nanoTime();
            large.seedRecords(settings.largeTable());
            facts.put("e.large.seedSeconds", (System.nanoTime() - seeding) / 1e9);
            facts.put("e.large.records", large.records());
            // A longer warm-up: the first seconds on a table just emptied and seeded run slow (autovacuum after the
            // truncation), and the instances stood idle while the large table was seeded.
            measureInterleaved(List.of(Load.of(driver.http("e-10k", clients, client -> freshKey(small)), small),
                    Load.of(driver.http("e-large", clients, client -> freshKey(big)), big)),
                    settings.warmUp().multipliedBy(6));
        }
        // Gigabytes on the disk; a run that failed before here leaves them to the next, which recreates them.
        large.drop();
    }
}
