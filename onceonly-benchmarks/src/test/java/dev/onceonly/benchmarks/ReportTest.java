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

        // b - a = 1.0 ms: PostgreSQL 0.5, the service 0.4 (OnceOnly's own code 12.5 % of b's 0.8 = 0.1), the rest
        // 0.1; without OnceOnly's own code b/a would be 1.0 / (2.0 - 0.1).
        assertThat(md).contains("| 16 | 1.000 | 2.000 | 1.000 | 0.500 | 0.400 | 0.100 | 0.100 | 0.50 | 0.50 | 0.53 |");
        assertThat(md).contains(
                "| b: first executions | 16 | 75 | 500 (500–500) | 1.0 | 2.0 | 0.800 | 0.800 | 2.000 |");
        assertThat(md).as("no warm-up recorded").contains("| a: idempotency off | 16 | – | 1000 (1000–1000) |");
        assertThat(md).contains("until its JIT has settled (two 5 s windows in a row that each compiled fewer than "
                + "0.25 % of the methods compiled so far, or 3 minutes;");
    }

    @Test
    void tableSizeRatioMustBeWithinTenPerCentEitherWay() {
        assertThat(report(500, 475).markdown()).contains("| 0.90–1.10 | 0.95 | yes |");
        assertThat(report(500, 600).markdown()).contains("| 0.90–1.10 | 1.20 | **no** |");
        assertThat(report(500, 400).markdown()).contains("| 0.90–1.10 | 0.80 | **no** |");
    }

    private static Report report(double smallTable, double largeTable) {
        List<Measurement> measurements = List.of(
                measurement("a", 1000, 0.3, 0.4, 1.0),
                measurement("b", 500, 0.8, 0.8, 2.0),
                measurement("e-10k", smallTable, 1.0, 1.0, 3.0),
                measurement("e-large", largeTable, 1.0, 1.0, 3.0));
        Map<String, Object> facts = Map.of("e.large.records", 5_000_000L, "e.small.records", 10_000L,
                "e.large.seedSeconds", 90.0, "b.hotUpdates", "1 of 1", "warmUp.b/16", 75L);
        Map<String, ServiceProfile> profiles = Map.of("a/16", profile(0), "b/16", profile(0.025));
        return new Report(List.of(), new HttpBenchmark.Results(measurements, profiles, facts), SETTINGS,
                Instant.EPOCH, Instant.EPOCH, false);
    }

    private static Measurement measurement(String scenario, double throughput, double database, double service,
            double machine) {
        return new Measurement(scenario, 16, List.of(new Measurement.Round(throughput, 1, 2, Map.of(201, 1L),
                database, service, machine)));
    }

    /** A profile that gives each of OnceOnly's five components {@code onceOnlyShare} of the service's CPU. */
    private static ServiceProfile profile(double onceOnlyShare) {
        Map<String, Double> cpu = new HashMap<>();
        ServiceProfile.COMPONENTS.forEach(c -> cpu.put(c, c.startsWith("OnceOnly") ? onceOnlyShare : 0.0));
        cpu.put("Spring", 1 - 5 * onceOnlyShare);
        Map<String, Double> allocated = new HashMap<>();
        ServiceProfile.COMPONENTS.forEach(c -> allocated.put(c, 0.0));
        return new ServiceProfile(1000, 0.9, cpu, 1024, allocated,
                new ServiceProfile.Pauses(10, 1, 0.1, 2, 1024, 1, 0.5, 512, 512));
    }
}
