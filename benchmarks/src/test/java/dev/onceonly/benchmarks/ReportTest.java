package dev.onceonly.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.benchmarks.http.HttpBenchmark;
import dev.onceonly.benchmarks.http.Measurement;
import dev.onceonly.benchmarks.http.ServiceProfile;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReportTest {

    private static final HttpBenchmark.Settings SETTINGS = new HttpBenchmark.Settings(List.of(1, 16),
            Duration.ofSeconds(1), Duration.ofSeconds(1), 1, 5_000_000);

    @Test
    void splitsWhatAFirstExecutionCostsTheMachineMoreAndBoundsTheRatioWithoutOnceOnlysOwnCode() {
        String md = report(500, 500).markdown();

        // b - a = 1.0 ms: PostgreSQL 0.5, the service 0.4 (OnceOnly's own code 12.5 % of b's 0.8 = 0.1), the load
        // driver 0.06, the rest 0.04; without the driver a/b would be (1.0 - 0.2) / (2.0 - 0.26); without OnceOnly's
        // own code b/a would be 1.0 / (2.0 - 0.1).
        assertThat(md).contains(
                "| 16 | 1.000 | 2.000 | 1.000 | 0.500 | 0.400 | 0.100 | 0.060 | 0.040 | 0.50 | 0.46 | 0.50 | 0.53 |");
        assertThat(md).contains(
                "| b: first executions | 16 | 75 | 500 (500–500) | 1.0 | 2.0 | 0.800 | 0.800 | 0.260 | 2.000 |");
        assertThat(md).as("no warm-up recorded").contains("| a: idempotency off | 16 | – | 1000 (1000–1000) |");
        assertThat(md).contains("until its JIT has settled (two 5 s windows in a row that each compiled fewer than "
                + "0.25 % of the methods compiled so far, or 3 minutes;");
    }

    @Test
    void theStormIsReadAgainstTheSameRoundsWithoutItAndItsDuplicatesCostBesideAReplay() {
        List<Measurement> measurements = List.of(
                measurement("c", 2000, 0.05, 0.2, 0.45, 0.2),
                measurement("d-none", 500, 0.8, 0.8, 2.0, 0.26, 100),
                measurement("d", 400, 0.8, 0.8, 2.0, 0.26, 160));
        Map<String, Object> facts = Map.of("d.stormRate", 1000, "d.stormShare", 0.21,
                "d.duplicateCpu", Map.of("machine", 0.42, "service", 0.18, "database", 0.01, "driver", 0.2));
        String md = new Report(List.of(), new HttpBenchmark.Results(measurements, Map.of(), facts), SETTINGS,
                Instant.EPOCH, Instant.EPOCH, false).markdown();

        assertThat(md).contains("| d, other clients' p99 during an open-loop storm / in the same rounds without it, 16 "
                + "clients | <= 1.50 | 1.60 | **no** |");
        assertThat(md).contains("| a duplicate of d | 0.420 | 0.180 | 0.010 | 0.200 |");
        assertThat(md).contains("| a replay of c | 0.450 | 0.200 | 0.050 | 0.200 |");
        assertThat(md).contains("The duplicates took 21 % of the machine's CPU (the median of the rounds).");
    }

    @Test
    void theHttpRatioIsSetBesideTheRawOneOnlyWhereTheFloorsRanInTheServicesRounds() {
        List<Measurement> measurements = List.of(measurement("a", 1000, 0.2, 0.4, 1.0, 0.1),
                measurement("b", 500, 0.5, 0.5, 2.0, 0.1), measurement("floor-a", 4000, 0.2, 0.0, 0.3, 0.1),
                measurement("floor-b", 2000, 0.5, 0.0, 0.7, 0.1), measurement("floor-g", 3000, 0.35, 0.0, 0.5, 0.1));
        String together = new Report(List.of(), new HttpBenchmark.Results(measurements, Map.of(), Map.of()),
                SETTINGS, Instant.EPOCH, Instant.EPOCH, false).markdown();
        String apart = new Report(List.of(), new HttpBenchmark.Results(measurements, Map.of(),
                Map.of("floorsApart", true)), SETTINGS, Instant.EPOCH, Instant.EPOCH, false).markdown();

        String target = "| (b/a) / (floor-b/floor-a), the HTTP ratio / the raw-JDBC ratio, 16 clients | >= 0.90 | ";
        assertThat(together).contains(target + "1.00 | yes |").contains("in the services' rounds");
        assertThat(apart).contains(target + "– | – |").contains("in rounds of their own after the services'");
        assertThat(apart).contains("| 16 | 0.200 | 0.500 | 0.350 | 0.70 |");
    }

    @Test
    void theFingerprintRatioIsTheMedianOfForksRunSideBySideSoThatOneSlowStretchDoesNotDecideIt() {
        // The pass's third fork ran in a slow stretch (250 against 135 µs) that SHA-256's third fork beside it did
        // not see: over all forks the pass averages 158 µs, 4.3 x SHA-256's mean, but pair by pair it is 3.6 x.
        List<JmhResult> jmh = List.of(
                new JmhResult("FingerprintBenchmark.canonicalJsonFingerprint", "65536", 158, 40, "us/op",
                        List.of(135.0, 133.0, 250.0, 137.0, 135.0)),
                new JmhResult("FingerprintBenchmark.sha256Baseline", "65536", 37, 1, "us/op",
                        List.of(37.0, 37.0, 36.5, 37.5, 37.0)),
                new JmhResult("FingerprintBenchmark.canonicalJsonFingerprint", "2048", 5.0, 0.1, "us/op",
                        List.of(5.0)),
                new JmhResult("FingerprintBenchmark.sha256Baseline", "2048", 1.25, 0.01, "us/op", List.of(1.25)));
        Report report = new Report(jmh, new HttpBenchmark.Results(List.of(), Map.of(), Map.of()), SETTINGS,
                Instant.EPOCH, Instant.EPOCH, false);
        String md = report.markdown();

        assertThat(md).contains("| fingerprint of a 64 KB JSON body / plain SHA-256 of it | <= 4.00 | 3.65 | yes |");
        assertThat(md).contains("| 65536 | 3.65 | 3.65, 3.59, 6.85, 3.65, 3.65 |");
        assertThat(md).contains("| 2048 | 4.00 | 4.00 |");
        assertThat(md).contains("| FingerprintBenchmark.canonicalJsonFingerprint | 65536 | 158.000 | 40.000 | us/op |");
        assertThat(report.json()).contains("\"median\" : 3.6486486486486487")
                .contains("\"forks\" : [ 135.0, 133.0, 250.0, 137.0, 135.0 ]");
    }

    @Test
    void tableSizeRatioMustBeWithinTenPerCentEitherWay() {
        assertThat(report(500, 475).markdown()).contains("| 0.90–1.10 | 0.95 | yes |");
        assertThat(report(500, 600).markdown()).contains("| 0.90–1.10 | 1.20 | **no** |");
        assertThat(report(500, 400).markdown()).contains("| 0.90–1.10 | 0.80 | **no** |");
    }

    private static Report report(double smallTable, double largeTable) {
        List<Measurement> measurements = List.of(
                measurement("a", 1000, 0.3, 0.4, 1.0, 0.2),
                measurement("b", 500, 0.8, 0.8, 2.0, 0.26),
                measurement("e-10k", smallTable, 1.0, 1.0, 3.0, 0.2),
                measurement("e-large", largeTable, 1.0, 1.0, 3.0, 0.2));
        Map<String, Object> facts = Map.of("e.large.records", 5_000_000L, "e.small.records", 10_000L,
                "e.large.seedSeconds", 90.0, "b.hotUpdates", "1 of 1", "warmUp.b/16", 75L);
        Map<String, ServiceProfile> profiles = Map.of("a/16", profile(0), "b/16", profile(0.125));
        return new Report(List.of(), new HttpBenchmark.Results(measurements, profiles, facts), SETTINGS,
                Instant.EPOCH, Instant.EPOCH, false);
    }

    private static Measurement measurement(String scenario, double throughput, double database, double service,
            double machine, double driver) {
        return measurement(scenario, throughput, database, service, machine, driver, 2);
    }

    private static Measurement measurement(String scenario, double throughput, double database, double service,
            double machine, double driver, double p99) {
        return new Measurement(scenario, 16, List.of(new Measurement.Round(throughput, 1, p99, Map.of(201, 1L),
                database, null, service, machine, driver, null)));
    }

    /** A profile that gives OnceOnly's components together {@code onceOnlyShare} of the service's CPU. */
    private static ServiceProfile profile(double onceOnlyShare) {
        long components = ServiceProfile.COMPONENTS.stream().filter(c -> c.startsWith("OnceOnly")).count();
        Map<String, Double> cpu = new HashMap<>();
        ServiceProfile.COMPONENTS.forEach(c -> cpu.put(c, c.startsWith("OnceOnly") ? onceOnlyShare / components
                : 0.0));
        cpu.put("Spring", 1 - onceOnlyShare);
        Map<String, Double> allocated = new HashMap<>();
        ServiceProfile.COMPONENTS.forEach(c -> allocated.put(c, 0.0));
        return new ServiceProfile(1000, 0.9, cpu, 1024, allocated,
                new ServiceProfile.Pauses(10, 1, 0.1, 2, 1024, 1, 0.5, 512, 512));
    }
}
