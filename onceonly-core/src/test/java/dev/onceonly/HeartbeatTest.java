package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.ForwardingIdempotencyStore;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.LeaseToken;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Heartbeats on a real scheduler of one thread, whose periodic tasks end for good once one of their runs throws,
 * renewing every 10 ms (a lease of 30 ms).
 */
class HeartbeatTest {

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final List<Heartbeat> started = new ArrayList<>();

    @AfterEach
    void stop() {
        started.forEach(Heartbeat::stop);
        scheduler.shutdownNow();
    }

    // issue 39: a renewal that threw an Error stopped its heartbeat, and the record was taken over while the work ran.
    @Test
    void renewalsGoOnAfterOneThrewAnError() throws InterruptedException {
        CountDownLatch renewals = new CountDownLatch(3);
        AtomicBoolean thrown = new AtomicBoolean();

        start(renewing(scope -> {
            renewals.countDown();
            if (thrown.compareAndSet(false, true)) {
                throw new StackOverflowError("the first renewal");
            }
        }), Runnable::run, scope("k"));

        assertThat(renewals.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(thrown).isTrue();
    }

    // A renewal executor that could not start a thread (an Error) would end the periodic tick for good.
    @Test
    void ticksGoOnAfterTheRenewalExecutorThrewAnError() throws InterruptedException {
        CountDownLatch renewals = new CountDownLatch(2);
        AtomicBoolean refused = new AtomicBoolean();
        Executor failingOnce = task -> {
            if (refused.compareAndSet(false, true)) {
                throw new OutOfMemoryError("unable to create native thread");
            }
            task.run();
        };

        start(renewing(scope -> renewals.countDown()), failingOnce, scope("tick"));

        assertThat(renewals.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(refused).isTrue();
    }

    // issue 39: renewals ran on the scheduler's threads, and renewals stuck on the store stopped every other one.
    @Test
    void renewalStuckOnTheStoreHoldsUpNoOtherAttemptsRenewals() throws InterruptedException {
        IdempotencyScope stuck = scope("stuck");
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch otherRenewals = new CountDownLatch(3);
        IdempotencyStore store = renewing(scope -> {
            if (scope.equals(stuck)) {
                release.await(); // a half-open connection
            } else {
                otherRenewals.countDown();
            }
        });
        Executor virtualThreads = task -> Thread.ofVirtual().start(task);

        start(store, virtualThreads, stuck);
        start(store, virtualThreads, scope("other"));
        try {
            assertThat(otherRenewals.await(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            release.countDown();
        }
    }

    private void start(IdempotencyStore store, Executor renewals, IdempotencyScope scope) {
        Instant now = Instant.now();
        started.add(Heartbeat.start(store, Clock.systemUTC(), scheduler, renewals, scope, new LeaseToken(1, now),
                now.plusSeconds(30), Duration.ofMillis(30), Duration.ofHours(1)));
    }

    private static IdempotencyScope scope(String key) {
        return new IdempotencyScope("alice", "pay", IdempotencyKey.of(key + "-1234567890abcdef"));
    }

    /** What a store's renewal does before it confirms the lease. */
    @FunctionalInterface
    private interface Renewal {
        void renew(IdempotencyScope scope) throws InterruptedException;
    }

    private static IdempotencyStore renewing(Renewal renewal) {
        return new ForwardingIdempotencyStore(new InMemoryIdempotencyStore()) {
            @Override
            public boolean renew(IdempotencyScope scope, LeaseToken token, Instant leaseExpiresAt, Instant now) {
                try {
                    renewal.renew(scope);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return true;
            }
        };
    }
}
