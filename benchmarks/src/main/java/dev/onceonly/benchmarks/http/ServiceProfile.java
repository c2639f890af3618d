package dev.onceonly.benchmarks.http;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedObject;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * A JDK Flight Recorder profile of the service while it serves rounds of a scenario: CPU per request by component
 * (the process's CPU time, split by JFR's execution samples), bytes allocated per request by component (JFR's
 * allocation samples, whose weights add up to what was allocated), and the young collections' pauses.
 *
 * <p>A sample goes to the component of the innermost frame that belongs to a framework or to OnceOnly; the libraries
 * a frame calls (Jackson, the JDBC driver, the JDK) count for OnceOnly when OnceOnly called them, and as themselves
 * when a framework did: the fingerprint's JSON parsing is the fingerprint's, the handler's request body is JSON's.
 *
 * @param requests the requests served in the service's turns
 * @param cpuMillisPerRequest the service process's CPU time (all threads: also GC and JIT) per request
 * @param cpu the share of the execution samples by component
 * @param allocatedBytesPerRequest bytes allocated per request, all threads (their allocation counters)
 * @param allocated bytes allocated per request by component, estimated from the allocation samples
 * @param youngPauses the young collections' pauses, in milliseconds
 */
public record ServiceProfile(long requests, double cpuMillisPerRequest, Map<String, Double> cpu,
        double allocatedBytesPerRequest, Map<String, Double> allocated, Pauses youngPauses) {

    /**
     * @param count young collections in the service's turns
     * @param meanMillis their mean pause
     * @param meanErrorMillis the standard error of that mean (the pauses' standard deviation / &radic;count):
     *     how far another recording's mean may fall from this one by chance
     * @param maxMillis their longest pause
     * @param meanCopiedBytes what a young collection copied on average (the young objects still alive): on a
     *     machine whose cores the database shares, a steadier figure of what keeps objects alive than the pause
     * @param workerCpuMillis what G1's worker threads spent on a core in the service's turns, all workers together,
     *     per collection of any kind (they work in pauses only): a collection's own work, whatever else the machine
     *     runs
     * @param workerWaitMillis what they spent runnable but waiting for a core, per collection: cores held by
     *     another process (the database, the load driver) or by each other, the part of a pause the collector
     *     does not decide (Linux's schedstat, like the time on a core)
     * @param firstSurvivorBytes what a young collection kept in its survivor space of objects it saw for the
     *     first time (age 1), on average: born since the collection before and still alive, mostly the state of
     *     the requests in flight
     * @param olderSurvivorBytes what it kept of objects that had survived a collection before (age 2 and over):
     *     what outlives a request, such as a cache's entries, until it dies or is promoted
     */
    public record Pauses(int count, double meanMillis, double meanErrorMillis, double maxMillis,
            double meanCopiedBytes, double workerCpuMillis, double workerWaitMillis, double firstSurvivorBytes,
            double olderSurvivorBytes) {
    }

    /** Events that count from the recording's start, wherever they fall: threads' starts and allocation counters. */
    private static final Set<String> COUNTERS = Set.of("jdk.ThreadStart", "jdk.ThreadAllocationStatistics");

    /** What HotSpot names the threads that do a pause's parallel work: G1's workers. */
    private static final String GC_WORKERS = "GC Thread";

    /**
     * A virtual thread's stack, copied to the heap when it parks (on every database round trip): counted apart,
     * since it grows with the round trips and the stack's depth, not with any one component's work.
     */
    private static final String REDIS_CLIENT = "Redis client (Spring Data Redis, Lettuce, Netty)";
    private static final String VIRTUAL_THREADS = "virtual threads (stacks saved on park)";

    /** The components, in the order the report shows them. */
    public static final List<String> COMPONENTS = List.of("OnceOnly: filter and response capture", "OnceOnly: body caching",
            "OnceOnly: fingerprint", "OnceOnly: engine", "OnceOnly: store", "OnceOnly: Redis layer", "application",
            "JSON (Jackson)", "JDBC driver and pool", REDIS_CLIENT, "Spring", "Spring Security", "Tomcat (HTTP)", "metrics and logging",
            VIRTUAL_THREADS, "JDK and other");

    /**
     * A recording in progress, which counts the service's own turns of load only: between them the service idles
     * while another takes its turn, and what the flight recorder sees meanwhile is left out, but for the
     * allocation counters (see {@link #read}).
     */
    static final class Recording {

        private final ServiceProcess service;
        private final Path file;
        private final List<Window> windows = new ArrayList<>();
        private long requests;
        private long cpuTicks;
        private long gcWorkersRunNanos;
        private long gcWorkersWaitNanos;

        private Recording(ServiceProcess service, Path file) {
            this.service = service;
            this.file = file;
        }

        /** The service's turn begins; it counts once it {@linkplain Turn#end ends}. */
        Turn begin() throws IOException {
            return new Turn(service.cpuTicks(), gcWorkers(service), Instant.now());
        }

        /** Stops the recording and reads what it saw in the service's turns. */
        ServiceProfile stop() throws Exception {
            service.jcmd("JFR.stop", "name=onceonly-benchmark", "filename=" + file);
            return read(file, requests, cpuTicks, new ProcessCpu.Schedule(gcWorkersRunNanos, gcWorkersWaitNanos),
                    windows);
        }

        /** One of the service's turns, with the clocks as they read at its start. */
        final class Turn {

            private final long cpuTicksAtStart;
            private final Map<Long, ProcessCpu.Schedule> gcWorkersAtStart;
            private final Instant start;

            private Turn(long cpuTicksAtStart, Map<Long, ProcessCpu.Schedule> gcWorkersAtStart, Instant start) {
                this.cpuTicksAtStart = cpuTicksAtStart;
                this.gcWorkersAtStart = gcWorkersAtStart;
                this.start = start;
            }

            /** The turn ends; {@code served} is how many requests the service served in it. */
            void end(long served) throws IOException {
                windows.add(new Window(start, Instant.now()));
                cpuTicks += service.cpuTicks() - cpuTicksAtStart;
                ProcessCpu.Schedule gcWorkers = ProcessCpu.Schedule.between(gcWorkersAtStart, gcWorkers(service));
                gcWorkersRunNanos += gcWorkers.runNanos();
                gcWorkersWaitNanos += gcWorkers.waitNanos();
                requests += served;
            }
        }
    }

    /** A stretch of time, from (inclusive) to (exclusive). */
    record Window(Instant from, Instant to) {

        boolean contains(Instant instant) {
            return !instant.isBefore(from) && instant.isBefore(to);
        }
    }

    /**
     * The schedules of the service's GC workers; none found is an error, not a zero: a JVM that named them otherwise
     * would report collections that never wait.
     */
    private static Map<Long, ProcessCpu.Schedule> gcWorkers(ServiceProcess service) throws IOException {
        Map<Long, ProcessCpu.Schedule> workers = service.schedules(GC_WORKERS);
        if (workers.isEmpty()) {
            throw new IllegalStateException("the service has no thread named \"" + GC_WORKERS + "...\" to measure");
        }
        return workers;
    }

    /** Starts recording with the JDK's {@code profile} settings. */
    static Recording start(ServiceProcess service, Path file) throws Exception {
        Files.deleteIfExists(file);
        service.jcmd("JFR.start", "name=onceonly-benchmark", "settings=profile");
        return new Recording(service, file);
    }

    /**
     * Reads a recording. Allocation is counted exactly by each thread's allocation counter, which JFR records at the
     * start and the end of the recording: what it grew by, from zero for a thread started while recording (the
     * scheduler retires idle carriers of virtual threads after 30 s, so a round that follows a pause runs on carriers
     * the recording's start never saw). A thread that ends while recording takes its allocation with it; under load,
     * carriers do not. Allocation samples only split the total by component. A sample weighs what its
     * thread allocated since that thread's previous sample, and a thread's first sample in a recording also weighs
     * what it allocated before the recording started: a weight more than ten times the median counts as the median.
     * Samples, collections and survivors count only within {@code windows}; the allocation counters, which JFR
     * records only at the recording's start and end, count the idle stretches between too (about 10 KiB a second of
     * an idle service, measured with idempotency on, against hundreds of MiB a second under load).
     */
    static ServiceProfile read(Path file, long requests, long cpuTicks, ProcessCpu.Schedule gcWorkers,
            List<Window> windows) throws IOException {
        Map<String, Double> samples = zeroes();
        List<Map.Entry<String, Double>> allocationSamples = new ArrayList<>();
        Map<Long, long[]> allocatedByThread = new HashMap<>();
        Set<Long> startedWhileRecording = new HashSet<>();
        double sampleCount = 0;
        int pauses = 0;
        int collections = 0;
        double pauseSum = 0;
        double pauseSquares = 0;
        double pauseMax = 0;
        int evacuations = 0;
        double copied = 0;
        double firstSurvivors = 0;
        double olderSurvivors = 0;
        for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
            String type = event.getEventType().getName();
            if (!COUNTERS.contains(type) && windows.stream().noneMatch(w -> w.contains(event.getStartTime()))) {
                continue;
            }
            switch (type) {
                case "jdk.ExecutionSample" -> {
                    samples.merge(component(event.getStackTrace()), 1.0, Double::sum);
                    sampleCount++;
                }
                case "jdk.ObjectAllocationSample" -> allocationSamples.add(Map.entry(component(event.getStackTrace()),
                        (double) event.getLong("weight")));
                case "jdk.ThreadStart" -> startedWhileRecording.add(event.getThread("thread").getId());
                case "jdk.ThreadAllocationStatistics" -> {
                    long allocated = event.getLong("allocated");
                    allocatedByThread.merge(event.getThread("thread").getId(), new long[] {allocated, allocated},
                            (first, last) -> new long[] {first[0], last[1]});
                }
                case "jdk.G1EvacuationYoungStatistics" -> {
                    RecordedObject statistics = event.getValue("statistics");
                    copied += statistics.getLong("used") + statistics.getLong("directAllocated");
                    evacuations++;
                }
                case "jdk.TenuringDistribution" -> {
                    if (event.getLong("age") == 1) {
                        firstSurvivors += event.getLong("size");
                    } else {
                        olderSurvivors += event.getLong("size");
                    }
                }
                case "jdk.GarbageCollection" -> {
                    collections++;
                    if (event.getString("name").equals("G1New")) {
                        double pause = toMillis(event.getDuration("longestPause"));
                        pauses++;
                        pauseSum += pause;
                        pauseSquares += pause * pause;
                        pauseMax = Math.max(pauseMax, pause);
                    }
                }
                default -> {
                    // not used
                }
            }
        }
        double total = sampleCount;
        samples.replaceAll((component, count) -> total == 0 ? 0 : count / total);
        double allocated = allocatedByThread.entrySet().stream()
                .mapToLong(thread -> thread.getValue()[1]
                        - (startedWhileRecording.contains(thread.getKey()) ? 0 : thread.getValue()[0]))
                .sum();
        return new ServiceProfile(requests, ProcessCpu.millis(cpuTicks) / requests, samples, allocated / requests,
                split(allocationSamples, allocated / requests), new Pauses(pauses, mean(pauseSum, pauses),
                        meanError(pauses, pauseSum, pauseSquares), pauseMax, mean(copied, evacuations),
                        perCollection(gcWorkers.runNanos(), collections),
                        perCollection(gcWorkers.waitNanos(), collections), mean(firstSurvivors, evacuations),
                        mean(olderSurvivors, evacuations)));
    }

    /** Splits {@code perRequest} by component in proportion to the allocation samples' (capped) weights. */
    private static Map<String, Double> split(List<Map.Entry<String, Double>> allocationSamples, double perRequest) {
        Map<String, Double> bytes = zeroes();
        if (allocationSamples.isEmpty()) {
            return bytes;
        }
        double[] weights = allocationSamples.stream().mapToDouble(Map.Entry::getValue).sorted().toArray();
        double cap = 10 * weights[weights.length / 2];
        double sum = 0;
        for (Map.Entry<String, Double> sample : allocationSamples) {
            double weight = Math.min(cap, sample.getValue());
            bytes.merge(sample.getKey(), weight, Double::sum);
            sum += weight;
        }
        double scale = perRequest / sum;
        bytes.replaceAll((component, weight) -> weight * scale);
        return bytes;
    }

    private static double perCollection(long nanos, int collections) {
        return mean(nanos / 1e6, collections);
    }

    private static double mean(double total, int count) {
        return count == 0 ? 0 : total / count;
    }

    private static double meanError(int count, double sum, double squares) {
        if (count < 2) {
            return 0;
        }
        double variance = Math.max(0, (squares - sum * sum / count) / (count - 1));
        return Math.sqrt(variance / count);
    }

    private static double toMillis(Duration duration) {
        return duration.toNanos() / 1e6;
    }

    private static Map<String, Double> zeroes() {
        Map<String, Double> zeroes = new LinkedHashMap<>();
        COMPONENTS.forEach(component -> zeroes.put(component, 0.0));
        return zeroes;
    }

    /** The component a stack's work counts for; see the class comment. */
    static String component(RecordedStackTrace stack) {
        if (stack == null) {
            return "JDK and other";
        }
        List<RecordedFrame> frames = stack.getFrames();
        if (!frames.isEmpty() && frames.getFirst().getMethod().getType().getName()
                .startsWith("jdk.internal.vm.Continuation")) {
            return VIRTUAL_THREADS;
        }
        String library = null;
        for (RecordedFrame frame : frames) {
            if (!frame.isJavaFrame()) {
                continue;
            }
            String type = frame.getMethod().getType().getName();
            String owner = owner(type);
            if (owner != null) {
                return owner.startsWith("OnceOnly") || library == null ? owner : library;
            }
            if (library == null) {
                library = library(type);
            }
        }
        return library == null ? "JDK and other" : library;
    }

    /** The framework or OnceOnly component a class belongs to, or {@code null} for a library or the JDK. */
    private static String owner(String type) {
        if (type.startsWith("dev.onceonly.example.")) {
            return "application";
        }
        if (type.startsWith("dev.onceonly.jdbc.")) {
            return "OnceOnly: store";
        }
        if (type.startsWith("dev.onceonly.spring.web.servlet.CachedBodyRequest")) {
            return "OnceOnly: body caching";
        }
        if (type.startsWith("dev.onceonly.CanonicalJson") || type.startsWith("dev.onceonly.Fingerprint")
                || type.startsWith("dev.onceonly.ObjectShape") || type.startsWith("dev.onceonly.ByteWords")
                || type.startsWith("dev.onceonly.internal.Json")
                || type.startsWith("dev.onceonly.spring.web.servlet.ServletFingerprints")) {
            return "OnceOnly: fingerprint";
        }
        if (type.startsWith("dev.onceonly.redis.")) {
            return "OnceOnly: Redis layer";
        }
        if (type.startsWith("dev.onceonly.spring.")) {
            return "OnceOnly: filter and response capture";
        }
        if (type.startsWith("dev.onceonly.")) {
            return "OnceOnly: engine";
        }
        if (type.startsWith("org.springframework.data.redis.")) {
            return REDIS_CLIENT;
        }
        if (type.startsWith("org.springframework.security.")) {
            return "Spring Security";
        }
        if (type.startsWith("org.springframework.")) {
            return "Spring";
        }
        if (type.startsWith("org.apache.catalina.") || type.startsWith("org.apache.coyote.")
                || type.startsWith("org.apache.tomcat.")) {
            return "Tomcat (HTTP)";
        }
        return null;
    }

    private static String library(String type) {
        if (type.startsWith("tools.jackson.") || type.startsWith("com.fasterxml.jackson.")) {
            return "JSON (Jackson)";
        }
        if (type.startsWith("org.postgresql.") || type.startsWith("com.zaxxer.hikari.")) {
            return "JDBC driver and pool";
        }
        if (type.startsWith("io.lettuce.") || type.startsWith("io.netty.")) {
            return REDIS_CLIENT;
        }
        if (type.startsWith("io.micrometer.") || type.startsWith("ch.qos.logback.") || type.startsWith("org.slf4j.")) {
            return "metrics and logging";
        }
        return null;
    }
}
