package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.ForwardingIdempotencyStore;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.LeaseToken;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Heartbeats on a real scheduler, whose periodic tasks end for good once one of their runs throws. */
class HeartbeatTest {

    // issue 39: a renewal that threw an Error stopped its heartbeat, and the record was taken over while the work ran.
    @Test
    void renewalsGoOnAfterOneThrewAnError() throws InterruptedException {
        CountDownLatch renewals = new CountDownLatch(3);
        AtomicBoolean thrown = new AtomicBoolean();
        IdempotencyStore store = new ForwardingIdempotencyStore(new InMemoryIdempotencyStore()) {
            @Override
            public boolean renew(IdempotencyScope scope, LeaseToken token, Instant leaseExpiresAt, Instant now) {
                renewals.countDown();
                if (thrown.compareAndSet(false, true)) {
                    throw new StackOverflowError("the first renewal");
                }
                return true;
            }
        };
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        IdempotencyScope scope = new IdempotencyScope("alice", "pay", IdempotencyKey.of("k-1234567890abcdef"));
        Instant now = Instant.now();

        Heartbeat heartbeat = Heartbeat.start(store, Clock.systemUTC(), scheduler, Runnable::run, scope,
                new LeaseToken(1, now), now.plusSeconds(30), Duration.ofMillis(30), Duration.ofHours(1));
        try {
            assertThat(renewals.await(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            heartbeat.stop();
            scheduler.shutdownNow();
        }
        assertThat(thrown).isTrue();
    }

    // issue 39: renewals ran on the scheduler's threads, and renewals stuck on the store stopped every other one.
    @Test
    void renewalStuckOnTheStoreHoldsUpNoOtherAttemptsRenewals() throws InterruptedException {
        IdempotencyScope stuckScope = new IdempotencyScope("alice", "pay", IdempotencyKey.of("stuck-1234567890abcdef"));
        IdempotencyScope freeScope = new IdempotencyScope("alice", "pay", IdempotencyKey.of("free-1234567890abcdef"));
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch freeRenewals = new CountDownLatch(3);
        IdempotencyStore store = new ForwardingIdempotencyStore(new InMemoryIdempotencyStore()) {
            @Override
            public boolean renew(IdempotencyScope scope, LeaseToken token, Instant leaseExpiresAt, Instant now) {
                if (scope.equals(stuckScope)) {
                    try {
                        release.await(); // a half-open connection
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                } else {
                    freeRenewals.countDown();
                }
                return true;
            }
        };
        // One scheduler thread, as a busy pool would leave: the stuck renewal must not take it.
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        Instant now = Instant.now();
        Executor virtualThreads = task -> Thread.ofVirtual().start(task);

        Heartbeat stuck = Heartbeat.start(store, Clock.systemUTC(), scheduler, virtualThreads, stuckScope,
                new LeaseToken(1, now), now.plusSeconds(30), Duration.ofMillis(30), Duration.ofHours(1));
        Heartbeat free = Heartbeat.start(store, Clock.systemUTC(), scheduler, virtualThreads, freeScope,
                new LeaseToken(1, now), now.plusSeconds(30), Duration.ofMillis(30), Duration.ofHours(1));
        try {
            assertThat(freeRenewals.await(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            release.countDown();
            stuck.stop();
            free.stop();
            scheduler.shutdownNow();
        }
    }

    // A renewal executor that could not start a thread (an Error) would end the periodic tick for good.
    @Test
    void ticksGoOnAfterTheRenewalExecutorThrewAnError() throws InterruptedException {
        CountDownLatch renewals = new CountDownLatch(2);
        AtomicBoolean refused = new AtomicBoolean();
        IdempotencyStore store = new ForwardingIdempotencyStore(new InMemoryIdempotencyStore()) {
            @Override
            public boolean renew(IdempotencyScope scope, LeaseToken token, Instant leaseExpiresAt, Instant now) {
                renewals.countDown();
                return true;
            }
        };
        Executor failingOnce = task -> {
            if (refused.compareAndSet(false, true)) {
                throw new OutOfMemoryError("unable to create native thread");
            }
            task.run();
        };
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        IdempotencyScope scope = new IdempotencyScope("alice", "pay", IdempotencyKey.of("tick-1234567890abcdef"));
        Instant now = Instant.now();

        Heartbeat heartbeat = Heartbeat.start(store, Clock.systemUTC(), scheduler, failingOnce, scope,
                new LeaseToken(1, now), now.plusSeconds(30), Duration.ofMillis(30), Duration.ofHours(1));
        try {
            assertThat(renewals.await(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            heartbeat.stop();
            scheduler.shutdownNow();
        }
        assertThat(refused).isTrue();
    }
}
