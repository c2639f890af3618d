package dev.onceonly.benchmarks.jmh;

import dev.onceonly.Fingerprint;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The fingerprint of a JSON request (canonical JSON, then SHA-256) against its baseline, a plain SHA-256 of the
 * same bytes, for bodies of about 200 B, 2 KB and 64 KB. The benchmark suite runs the two methods' forks
 * alternately, so that each ratio compares the same minutes of the machine.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class FingerprintBenchmark {

    public static final String PASS = "canonicalJsonFingerprint";
    public static final String SHA_256 = "sha256Baseline";
    public static final String SMALL = "200";
    public static final String MEDIUM = "2048";
    public static final String LARGE = "65536";
    public static final List<String> BODY_BYTES = List.of(SMALL, MEDIUM, LARGE);

    @Param({SMALL, MEDIUM, LARGE})
    public int bodyBytes;

    private byte[] body;

    @Setup
    public void createBody() {
        body = OrderBodies.ofSize(bodyBytes).getBytes(StandardCharsets.UTF_8);
    }

    @Benchmark
    public Fingerprint canonicalJsonFingerprint() {
        return Fingerprint.builder().method("POST").route("/api/orders").jsonBody(body).build();
    }

    @Benchmark
    public byte[] sha256Baseline() throws NoSuchAlgorithmException {
        return MessageDigest.getInstance("SHA-256").digest(body);
    }
}
