package dev.onceonly.benchmarks.http;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Function;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * One scenario at one number of clients, over several rounds: the rounds' throughput and latency, and their
 * spread.
 *
 * @param scenario the scenario's letter and name
 * @param clients the concurrent clients of the measured group
 * @param rounds one result per round
 */
public record Measurement(String scenario, int clients, List<Round> rounds) {

    /**
     * @param throughput requests per second
     * @param p50Millis median latency
     * @param p99Millis 99th percentile latency
     * @param statuses responses by HTTP status (-1: no response)
     * @param databaseCpuMillis PostgreSQL's CPU time (all its processes) per request, or {@code null} where the
     *     database served other work at the same time
     * @param redisCpuMillis the Redis server's CPU time per request, or {@code null} where it served other work at
     *     the same time
     * @param serviceCpuMillis the measured service process's CPU time per request, or {@code null} where no one
     *     service was measured
     * @param machineCpuMillis the CPU time of every core per request (all processes and the kernel), or
     *     {@code null} where other load ran at the same time
     * @param driverCpuMillis the load driver's CPU time per request (this process, all threads), or {@code null}
     *     where other load ran at the same time
     * @param traffic what the service sent its database and Redis per request, or {@code null} where no one service
     *     was measured
     */
    public record Round(double throughput, double p50Millis, double p99Millis, Map<Integer, Long> statuses,
            @Nullable Double databaseCpuMillis, @Nullable Double redisCpuMillis, @Nullable Double serviceCpuMillis,
            @Nullable Double machineCpuMillis,
            @Nullable Double driverCpuMillis, Traffic.@Nullable PerRequest traffic) {
    }

    /** A closed-loop round alone on the machine, and the CPU time and the traffic it cost. */
    static Round round(LoadDriver.GroupResult result, ProcessCpu.Clocks spent, Traffic.@Nullable PerRequest traffic) {
        long requests = result.requests();
        return new Round(result.throughput(), result.p50Millis(), result.p99Millis(), result.statuses(),
                ProcessCpu.millis(spent.database()) / requests, ProcessCpu.millis(spent.redis()) / requests,
                spent.service() == null ? null : ProcessCpu.millis(spent.service()) / requests,
                ProcessCpu.millis(spent.machine()) / requests, ProcessCpu.millis(spent.driver()) / requests, traffic);
    }

    static Round round(LoadDriver.GroupResult result) {
        return new Round(result.throughput(), result.p50Millis(), result.p99Millis(), result.statuses(), null, null,
                null, null, null, null);
    }

    /** An open-loop run as one round: its latencies count from when each request was due. */
    static Round round(LoadDriver.OpenLoop.Result result) {
        Histogram all = new Histogram(3_600_000_000L, 3);
        result.seconds().forEach(all::add);
        return new Round(result.requests() / result.elapsedSeconds(), all.getValueAtPercentile(50) / 1000.0,
                all.getValueAtPercentile(99) / 1000.0, result.statuses(), null, null, null, null, null, null);
    }

    public double medianThroughput() {
        return median(rounds.stream().map(Round::throughput).toList());
    }

    public double minThroughput() {
        return rounds.stream().mapToDouble(Round::throughput).min().orElse(0);
    }

    public double maxThroughput() {
        return rounds.stream().mapToDouble(Round::throughput).max().orElse(0);
    }

    public double medianP50() {
        return median(rounds.stream().map(Round::p50Millis).toList());
    }

    /** The median round's database CPU per request, if measured. */
    public @Nullable Double medianDatabaseCpuMillis() {
        return medianOf(Round::databaseCpuMillis);
    }

    /** The median round's Redis server CPU per request, if measured. */
    public @Nullable Double medianRedisCpuMillis() {
        return medianOf(Round::redisCpuMillis);
    }

    /** The median round's service CPU per request, if measured. */
    public @Nullable Double medianServiceCpuMillis() {
        return medianOf(Round::serviceCpuMillis);
    }

    /** The median round's machine CPU per request, if measured. */
    public @Nullable Double medianMachineCpuMillis() {
        return medianOf(Round::machineCpuMillis);
    }

    /** The median round's load-driver CPU per request, if measured. */
    public @Nullable Double medianDriverCpuMillis() {
        return medianOf(Round::driverCpuMillis);
    }

    private @Nullable Double medianOf(Function<Round, @Nullable Double> figure) {
        List<Double> measured = rounds.stream().map(figure).filter(Objects::nonNull).toList();
        return measured.isEmpty() ? null : median(measured);
    }

    /** The median round's figure of the traffic per request, if measured. */
    public @Nullable Double medianTraffic(Function<Traffic.PerRequest, @Nullable Double> figure) {
        return medianOf(round -> round.traffic() == null ? null : figure.apply(round.traffic()));
    }

    public double medianP99() {
        return median(rounds.stream().map(Round::p99Millis).toList());
    }

    public Map<Integer, Long> statuses() {
        Map<Integer, Long> all = new TreeMap<>();
        rounds.forEach(round -> round.statuses().forEach((status, count) -> all.merge(status, count, Long::sum)));
        return all;
    }

    public static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted(Comparator.naturalOrder()).toList();
        int n = sorted.size();
        return n == 0 ? 0 : n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
