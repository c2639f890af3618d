package dev.onceonly.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class PeriodicTaskTest {

    // issue 39: a periodic task that threw an Error was never run again by its scheduler.
    @Test
    void taskRunsAgainAfterARunThatThrewAnError() throws InterruptedException {
        AtomicBoolean thrown = new AtomicBoolean();
        CountDownLatch thirdRun = new CountDownLatch(3);
        PeriodicTask periodic = new PeriodicTask("onceonly-test-task", Duration.ZERO, Duration.ofMillis(1), () -> {
            thirdRun.countDown();
            if (thrown.compareAndSet(false, true)) {
                throw new StackOverflowError("the first run");
            }
        });

        periodic.start();
        try {
            assertThat(thirdRun.await(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            periodic.stop();
        }
        assertThat(thrown).isTrue();
    }
}
