package dev.onceonly.benchmarks.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProcessCpuTest {

    @Test
    void machineTicksCountWorkButNotIdleIoWaitStealOrGuest() {
        // user nice system idle iowait irq softirq steal guest guest_nice; guest time is already in user and nice.
        assertThat(ProcessCpu.machineTicks("cpu  100 2 30 4000 50 6 7 800 9 10")).isEqualTo(100 + 2 + 30 + 6 + 7);
    }
}
