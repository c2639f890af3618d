package dev.onceonly;

import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.LeaseToken;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/**
 * How an engine renews the leases of its running attempts.
 *
 * @param scheduler ticks every third of a lease
 * @param renewals runs each renewal, so that one stuck on the store holds up no other
 * @param maxAttemptDuration how long an attempt's lease is renewed at most, however long its work runs
 */
record Heartbeats(ScheduledExecutorService scheduler, Executor renewals, Duration maxAttemptDuration) {

    Heartbeat start(IdempotencyStore store, Clock clock, IdempotencyScope scope, LeaseToken token,
            Instant leaseExpiresAt, Duration leaseDuration) {
        return Heartbeat.start(store, clock, scheduler, renewals, scope, token, leaseExpiresAt, leaseDuration,
                maxAttemptDuration);
    }
}
