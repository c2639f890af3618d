package dev.onceonly.benchmarks.http;

import com.sun.management.OperatingSystemMXBean;
import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.redis.FailFastLettuce;
import dev.onceonly.redis.RedisOutcomeCache;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.ToDoubleFunction;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.RedisStringCommands;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.types.Expiration;
import org.springframework.data.redis.serializer.RedisSerializer;

/**
 * What one Redis round trip of a first execution costs, with no service around it: the caller's CPU (this process)
 * and the Redis server's, per call, for the outcome cache's {@code enter} as a write-once first execution calls it
 * (one script), and for a plain {@code SET … NX PX} of a value as long as its marker over the same connection factory
 * (what a round trip costs without the script). As in a service, calls do not pile up on the connection: each of 16
 * virtual threads pauses 2 ms after each call, and a round of the pauses alone, before each pair of rounds, is taken
 * off the caller's CPU. The calls take turns, round by round and in alternating order, so that a drift of the machine
 * weighs on both alike. A call that does not set its key (Redis failed, or the breaker skipped it) fails the run.
 * The run's keys are removed at the end, before the services' rounds.
 */
final class RedisRoundTrip implements AutoCloseable {

    /** What one call costs, in microseconds, the median of the rounds. */
    record Cost(double callerMicros, double redisMicros, double callsPerSecond) {
    }

    private static final int CALLERS = 16;
    private static final long PAUSE_NANOS = Duration.ofMillis(2).toNanos();
    private static final Duration WARM_UP = Duration.ofSeconds(3);
    private static final Duration ROUND = Duration.ofSeconds(5);
    private static final int ROUNDS = 5;
    /** The HTTP benchmark's times to live: no key expires while this runs. */
    private static final Duration TIME_TO_LIVE = Duration.ofMinutes(5);
    /** A marker's length: fingerprint, token and a life of six digits. */
    private static final int MARKER_BYTES = Fingerprint.LENGTH + 32 + 6;

    private final LettuceConnectionFactory factory;
    private final RedisOutcomeCache cache;
    private final RedisTemplate<String, byte[]> template;
    private final String prefix;

    RedisRoundTrip(String host, int port) {
        factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port),
                FailFastLettuce.clientConfiguration(Duration.ofSeconds(1), false));
        factory.afterPropertiesSet();
        factory.start();
        prefix = "bench-rt-" + UUID.randomUUID();
        cache = RedisOutcomeCache.builder(factory).prefix(prefix).maxTimeToLive(TIME_TO_LIVE).build();
        template = new RedisTemplate<>();
        template.setConnectionFactory(factory);
        template.setKeySerializer(RedisSerializer.string());
        template.setValueSerializer(RedisSerializer.byteArray());
        // As the cache's own template: no proxy around the connection for each call.
        template.setExposeConnection(true);
        template.afterPropertiesSet();
    }

    /** The cost of each call, by name: {@code enter}, {@code set-nx}. */
    Map<String, Cost> measure() throws Exception {
        Map<String, Runnable> calls = new LinkedHashMap<>();
        calls.put("none", () -> { });
        calls.put("enter", () -> cache.enter(IdempotencyScope.of("bench", "round-trip",
                IdempotencyKey.of(UUID.randomUUID().toString())), fingerprint(), true));
        byte[] marker = new byte[MARKER_BYTES];
        LongAdder refused = new LongAdder();
        calls.put("set-nx", () -> {
            byte[] key = (prefix + ":" + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8);
            if (!Boolean.TRUE.equals(template.execute((RedisCallback<Boolean>) connection -> connection
                    .stringCommands().set(key, marker, Expiration.milliseconds(TIME_TO_LIVE.toMillis()),
                            RedisStringCommands.SetOption.ifAbsent())))) {
                refused.increment();
            }
        });
        if (!cache.ping()) {
            throw new IllegalStateException("Redis does not answer");
        }
        for (Runnable call : calls.values()) {
            round(call, WARM_UP);
        }
        RedisOutcomeCache.Statistics warm = cache.statistics();
        Map<String, List<Cost>> rounds = new LinkedHashMap<>();
        for (int i = 0; i < ROUNDS; i++) {
            Round alone = round(calls.get("none"), ROUND);
            for (String name : i % 2 == 0 ? List.of("enter", "set-nx") : List.of("set-nx", "enter")) {
                rounds.computeIfAbsent(name, n -> new ArrayList<>()).add(round(calls.get(name), ROUND).less(alone));
            }
        }
        RedisOutcomeCache.Statistics statistics = cache.statistics();
        if (statistics.failures() + statistics.skipped() + statistics.hits() + statistics.running()
                > warm.failures() + warm.skipped() + warm.hits() + warm.running() || refused.sum() > 0) {
            throw new IllegalStateException("a call did not set its key in Redis: " + statistics + ", " + refused.sum()
                    + " SET NX refused");
        }
        Map<String, Cost> costs = new LinkedHashMap<>();
        rounds.forEach((name, costsOf) -> costs.put(name, new Cost(median(costsOf, Cost::callerMicros),
                median(costsOf, Cost::redisMicros), median(costsOf, Cost::callsPerSecond))));
        return costs;
    }

    /** What a round used: the caller's CPU and the Redis server's, in µs, over its calls and seconds. */
    private record Round(double callerMicros, double redisMicros, long calls, double seconds) {

        /**
         * A call's cost beyond that of the pauses alone, measured in {@code alone}: the caller's per call (each call
         * pauses once), the Redis server's per second (what it spends idle).
         */
        Cost less(Round alone) {
            return new Cost((callerMicros - alone.callerMicros / alone.calls * calls) / calls,
                    (redisMicros - alone.redisMicros / alone.seconds * seconds) / calls, calls / seconds);
        }
    }

    private static Round round(Runnable call, Duration length) throws Exception {
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        LongAdder calls = new LongAdder();
        long redisBefore = ProcessCpu.redisTicks();
        long cpuBefore = os.getProcessCpuTime();
        long started = System.nanoTime();
        long end = started + length.toNanos();
        List<Future<?>> running = new ArrayList<>();
        try (ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < CALLERS; i++) {
                running.add(callers.submit(() -> {
                    while (System.nanoTime() < end) {
                        call.run();
                        calls.increment();
                        LockSupport.parkNanos(PAUSE_NANOS);
                    }
                }));
            }
        }
        for (Future<?> caller : running) {
            caller.get();
        }
        long cpu = os.getProcessCpuTime() - cpuBefore;
        double seconds = (System.nanoTime() - started) / 1e9;
        double redis = ProcessCpu.millis(ProcessCpu.redisTicks() - redisBefore) * 1e3;
        return new Round(cpu / 1e3, redis, calls.sum(), seconds);
    }

    private static Fingerprint fingerprint() {
        byte[] digest = new byte[Fingerprint.LENGTH];
        ThreadLocalRandom.current().nextBytes(digest);
        return Fingerprint.ofDigest(digest);
    }

    private static double median(List<Cost> rounds, ToDoubleFunction<Cost> figure) {
        double[] values = rounds.stream().mapToDouble(figure).sorted().toArray();
        return values[values.length / 2];
    }

    /** Removes every key of the run, so that none expires in the measurements that follow. */
    @Override
    public void close() {
        ScanOptions ours = ScanOptions.scanOptions().match(prefix + ":*").count(1_000).build();
        try (Cursor<String> keys = template.scan(ours)) {
            List<String> batch = new ArrayList<>();
            while (keys.hasNext()) {
                batch.add(keys.next());
                if (batch.size() == 1_000 || !keys.hasNext()) {
                    template.unlink(batch);
                    batch.clear();
                }
            }
        } finally {
            factory.destroy();
        }
    }
}
