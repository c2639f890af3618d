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

        Heartbeat heartbeat = Heartbeat.start(store, Clock.systemUTC(), scheduler, scope, new LeaseToken(1, now),
                now.plusSeconds(30), Duration.ofMillis(30));
        try {
            assertThat(renewals.await(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            heartbeat.stop();
            scheduler.shutdownNow();
        }
        assertThat(thrown).isTrue();
    }
}
