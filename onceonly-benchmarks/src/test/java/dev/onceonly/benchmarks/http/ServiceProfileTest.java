package dev.onceonly.benchmarks.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServiceProfileTest {

    private static final int ALLOCATED = 64 << 20;

    private static volatile byte[] sink;

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

        ServiceProfile profile = ServiceProfile.read(file, 1, 0, new ProcessCpu.Schedule(0, 0));

        assertThat(profile.allocatedBytesPerRequest()).isGreaterThanOrEqualTo(ALLOCATED);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
