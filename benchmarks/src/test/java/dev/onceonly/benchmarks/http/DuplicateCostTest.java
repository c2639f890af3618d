package dev.onceonly.benchmarks.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DuplicateCostTest {

    @Test
    void aDuplicateCostsWhatTheStormRoundSpentBeyondItsOtherRequestsAtTheirCostWithoutTheStorm() {
        // 10 s of the machine, 2 s of PostgreSQL, 3 s of the driver, 4 s of the service (100 ticks a second).
        ProcessCpu.Clocks spent = new ProcessCpu.Clocks(1000, 200, 0, 300, 400L);
        // Without the storm, a request of the others cost 3 ms of the machine, 1.5 of the service, 0.8 of
        // PostgreSQL and 1 of the driver.
        Measurement.Round quiet = new Measurement.Round(250, 1, 2, Map.of(201, 1L), 0.8, 0.0, 1.5, 3.0, 1.0, null);

        HttpBenchmark.DuplicateCost cost = HttpBenchmark.DuplicateCost.of(spent, 2000, quiet, 1000);

        // The 2,000 others account for 6 of the machine's 10 s: the 1,000 duplicates for 4 s, 40 % of it.
        assertThat(cost.machine()).isCloseTo(4.0, within(1e-9));
        assertThat(cost.service()).isCloseTo(1.0, within(1e-9));
        assertThat(cost.database()).isCloseTo(0.4, within(1e-9));
        assertThat(cost.driver()).isCloseTo(1.0, within(1e-9));
        assertThat(cost.machineShare()).isCloseTo(0.4, within(1e-9));
    }

    @Test
    void theMedianOfTheRoundsIsTakenFigureByFigure() {
        HttpBenchmark.DuplicateCost median = HttpBenchmark.DuplicateCost.median(List.of(
                new HttpBenchmark.DuplicateCost(1, 9, 0, 5, 0.1),
                new HttpBenchmark.DuplicateCost(2, 1, 0, 6, 0.3),
                new HttpBenchmark.DuplicateCost(3, 5, 0, 4, 0.2)));

        assertThat(median).isEqualTo(new HttpBenchmark.DuplicateCost(2, 5, 0, 5, 0.2));
    }
}
