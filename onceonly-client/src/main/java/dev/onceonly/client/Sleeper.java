package dev.onceonly.client;

import java.time.Duration;

/**
 * How a retrying client waits between attempts. Injected through {@link ClientRetryPolicy.Builder#sleeper(Sleeper)} so
 * that tests can record the waits and advance a test clock instead of sleeping.
 *
 * <p>Implementations must be thread safe and must answer an interrupt with {@link InterruptedException}; the
 * clients then stop retrying.
 */
@FunctionalInterface
public interface Sleeper {

    /**
     * Waits for the given time.
     *
     * @param duration how long to wait, never negative
     * @throws InterruptedException if the waiting thread is interrupted
     */
    void sleep(Duration duration) throws InterruptedException;

    /**
     * The sleeper that blocks the calling thread ({@link Thread#sleep(Duration)}).
     *
     * @return the real sleeper
     */
    static Sleeper threadSleep() {
        return Thread::sleep;
    }
}
