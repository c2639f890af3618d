package dev.onceonly.benchmarks.jmh;

import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyKeyFormat;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/** Parsing an {@code Idempotency-Key} header value, bare and as a Structured Field String. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class KeyParsingBenchmark {

    private final String bare = "01JZ6Q4X7M9K8P2A6T3B5C1D0E";
    private final String quoted = "\"01JZ6Q4X7M9K8P2A6T3B5C1D0E\"";

    @Benchmark
    public IdempotencyKey bareToken() {
        return IdempotencyKeyFormat.DEFAULT.parse(bare);
    }

    @Benchmark
    public IdempotencyKey structuredFieldString() {
        return IdempotencyKeyFormat.DEFAULT.parse(quoted);
    }
}
