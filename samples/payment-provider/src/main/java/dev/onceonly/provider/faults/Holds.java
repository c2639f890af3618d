package dev.onceonly.provider.faults;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Holds answers back for injected latency and timeouts. Clearing the faults and stopping the application release
 * every answer held, so a test or a demo never waits out a 30 s timeout and shutdown does not hang on one; this
 * stops before the web server (the highest phase stops first).
 */
@Component
public class Holds implements SmartLifecycle {

    private volatile CountDownLatch release = new CountDownLatch(1);
    private volatile boolean running;

    /** Waits {@code duration} or until released; keeps the thread's interrupt status. */
    public void hold(Duration duration) {
        if (duration.isZero()) {
            return;
        }
        try {
            release.await(duration.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Lets every answer held now go; later holds wait again. */
    public synchronized void releaseAll() {
        CountDownLatch released = release;
        release = new CountDownLatch(1);
        released.countDown();
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        releaseAll();
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
