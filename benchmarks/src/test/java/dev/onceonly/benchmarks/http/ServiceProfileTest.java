package dev.onceonly.benchmarks.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServiceProfileTest {

    private static final int ALLOCATED = 64 << 20;

    private static final ServiceProfile.Window ALWAYS = new ServiceProfile.Window(Instant.MIN, Instant.MAX);

    private static volatile byte[] sink;
    private static volatile long spun;

    /**
     * A carrier of virtual threads started after the recording can do a whole round's allocating. Counting its counter
     * from its first record in the recording, as for a thread that was already running, counted none of it.
     */
    @Test
    void countsWhatAThreadStartedWhileRecordingAllocated(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("profile.jfr");
        CountDownLatch allocated = new CountDownLatch(1);
        CountDownLatch recorded = new CountDownLatch(1);
        try (Recording recording = new Recording(Configuration.getConfiguration("profile"))) {
            recording.start();
            Thread thread = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < ALLOCATED / 1024; i++) {
                    sink = new byte[1024];
                }
                allocated.countDown();
                awaitQuietly(recorded);
            });
            allocated.await();
            recording.stop();
            recording.dump(file);
            recorded.countDown();
            thread.join();
        }

        ProcessCpu.Schedule noWork = new ProcessCpu.Schedule(0, 0);
        ServiceProfile profile = ServiceProfile.read(file, 1, 0, noWork, List.of(ALWAYS));
        // JFR writes the allocation counters at the recording's start and end only, outside any turn of load.
        ServiceProfile inNoTurn = ServiceProfile.read(file, 1, 0, noWork, List.of());

        assertThat(profile.allocatedBytesPerRequest()).isGreaterThanOrEqualTo(ALLOCATED);
        assertThat(inNoTurn.allocatedBytesPerRequest()).isGreaterThanOrEqualTo(ALLOCATED);
    }

    /**
     * While one service takes its turn the other idles under its recorder: what the recorder saw between the
     * service's own turns is not the service's load, and counted, it would dilute the pauses and samples it has.
     */
    @Test
    void countsSamplesOnlyWithinTheServicesOwnTurns(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("profile.jfr");
        ServiceProfile.Window turn;
        try (Recording recording = new Recording(Configuration.getConfiguration("profile"))) {
            recording.start();
            Instant start = Instant.now();
            spin(Duration.ofMillis(500));
            turn = new ServiceProfile.Window(start, Instant.now());
            recording.stop();
            recording.dump(file);
        }
        ProcessCpu.Schedule noWork = new ProcessCpu.Schedule(0, 0);

        // The turn's bounds are read from the wall clock, as the benchmark reads them in its own process, and
        // compared with the times JFR gives its events.
        ServiceProfile inTurn = ServiceProfile.read(file, 1, 0, noWork, List.of(turn));
        ServiceProfile outOfTurn = ServiceProfile.read(file, 1, 0, noWork,
                List.of(new ServiceProfile.Window(turn.from().minusSeconds(60), turn.from().minusSeconds(30))));

        assertThat(inTurn.cpu().values().stream().mapToDouble(Double::doubleValue).sum()).isCloseTo(1.0,
                within(1e-9));
        assertThat(outOfTurn.cpu().values()).containsOnly(0.0);
    }

    private static void spin(Duration duration) {
        long end = System.nanoTime() + duration.toNanos();
        long sum = 0;
        while (System.nanoTime() < end) {
            sum += Long.numberOfTrailingZeros(System.nanoTime());
        }
        spun = sum;
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
