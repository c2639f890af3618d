package dev.onceonly.benchmarks.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class JitSettlingTest {

    @Test
    void settlesAfterTwoQuietWindowsInARow() {
        JitSettling jit = new JitSettling();
        assertThat(jit.settledAt(10_000)).as("a first look has nothing to compare with").isFalse();
        assertThat(jit.settledAt(10_020)).as("one quiet window").isFalse();
        assertThat(jit.settledAt(10_040)).as("two quiet windows in a row").isTrue();
    }

    @Test
    void aBusyWindowStartsTheCountAgain() {
        JitSettling jit = new JitSettling();
        jit.settledAt(10_000);
        jit.settledAt(10_020);
        // 80 more is 0.8 % of 10,100: still compiling.
        assertThat(jit.settledAt(10_100)).isFalse();
        assertThat(jit.settledAt(10_110)).isFalse();
        assertThat(jit.settledAt(10_120)).isTrue();
    }

    @Test
    void quietIsRelativeToWhatWasCompiledSoFar() {
        JitSettling jit = new JitSettling();
        jit.settledAt(1_000);
        // 20 more is 2 % of 1,020: a small application still compiling, not a large one settled.
        assertThat(jit.settledAt(1_020)).isFalse();
        assertThat(jit.settledAt(1_040)).isFalse();
    }

    @Test
    void readsTheCompilationCountFromTheJvmsCounters() {
        String counters = """
                sun.ci.standardCompiles=13954
                sun.ci.threads=2
                sun.ci.totalCompiles=14069
                sun.os.hrt.frequency=1000000000
                """;
        assertThat(ServiceProcess.compilations(counters)).isEqualTo(14_069);
        assertThatThrownBy(() -> ServiceProcess.compilations("sun.ci.threads=2\n"))
                .isInstanceOf(IllegalStateException.class);
    }
}
