package dev.onceonly.benchmarks;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.results.RunResult;

/**
 * One JMH benchmark at one body size, as the report reads it.
 *
 * @param benchmark class and method, without the package
 * @param bodyBytes the {@code bodyBytes} parameter, if the benchmark has one
 * @param score the mean over every measured iteration of every fork
 * @param error the half-width of its 99.9 % confidence interval
 * @param unit the unit of both, as JMH writes it
 * @param forks each fork's own mean, in the order the forks ran
 */
record JmhResult(String benchmark, @Nullable String bodyBytes, double score, double error, String unit,
        List<Double> forks) {

    static JmhResult of(RunResult run) {
        return new JmhResult(run.getParams().getBenchmark().replace("dev.onceonly.benchmarks.jmh.", ""),
                run.getParams().getParam("bodyBytes"), run.getPrimaryResult().getScore(),
                run.getPrimaryResult().getScoreError(), run.getPrimaryResult().getScoreUnit(),
                run.getBenchmarkResults().stream().map(fork -> fork.getPrimaryResult().getScore()).toList());
    }
}
