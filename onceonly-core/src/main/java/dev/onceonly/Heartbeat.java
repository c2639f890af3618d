package dev.onceonly;

import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.LeaseToken;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews the lease of one running leased attempt every third of the lease, through the store's fenced
 * {@link IdempotencyStore#renew}, until {@link #stop()}. A renewal the store refuses means the record was taken
 * over: the attempt is lost for good. A renewal that fails (store unreachable) is tried again at the next beat;
 * while none got through, the attempt counts as lost once its last confirmed lease has run out, since another
 * attempt may then take it over.
 *
 * <p>The scheduler only ticks: each renewal runs on the renewal executor (a virtual thread by default), and a beat
 * is skipped while the attempt's previous renewal is still under way, so that renewals stuck on a stalled
 * connection hold up their own attempt only, never every attempt of the process (issue 39: two stuck renewals on
 * the scheduler's two threads stopped all). An attempt whose work outlives the maximum attempt duration is no
 * longer renewed: its lease runs out and another instance may take the record over, rather than a hung handler
 * holding its key on every instance until a restart. Thread-safe.
 */
final class Heartbeat {

    /** The engine's category, which users configure. */
    private static final Logger log = LoggerFactory.getLogger(IdempotencyEngine.class);

    private final IdempotencyStore store;
    private final Clock clock;
    private final IdempotencyScope scope;
    private final LeaseToken token;
    private final Duration leaseDuration;
    private final Executor renewals;
    /** When renewals end, however long the work goes on. */
    private final Instant renewUntil;
    /** Whether a renewal is under way; a beat meanwhile is skipped. */
    private final AtomicBoolean renewing = new AtomicBoolean();
    private volatile Instant confirmedUntil;
    private volatile boolean refused;
    private volatile boolean stopped;
    /** Set right after scheduling; a beat that runs before sees {@code null} and cannot cancel itself. */
    private volatile @Nullable ScheduledFuture<?> beats;

    private Heartbeat(IdempotencyStore store, Clock clock, Executor renewals, IdempotencyScope scope,
            LeaseToken token, Instant leaseExpiresAt, Duration leaseDuration, Duration maxAttemptDuration) {
        this.store = store;
        this.clock = clock;
        this.renewals = renewals;
        this.scope = scope;
        this.token = token;
        this.leaseDuration = leaseDuration;
        this.confirmedUntil = leaseExpiresAt;
        this.renewUntil = untilOrEnd(clock.instant(), maxAttemptDuration);
    }

    /** {@code start} plus {@code duration}, or the end of time for a duration past it (no maximum). */
    private static Instant untilOrEnd(Instant start, Duration duration) {
        try {
            return start.plus(duration);
        } catch (DateTimeException | ArithmeticException beyond) {
            return Instant.MAX;
        }
    }

    private void schedule(ScheduledExecutorService scheduler) {
        long period = Math.max(1, leaseDuration.toMillis() / 3);
        beats = scheduler.scheduleAtFixedRate(this::tick, period, period, TimeUnit.MILLISECONDS);
    }

    /** Starts renewing the lease of an attempt whose work starts now. */
    static Heartbeat start(IdempotencyStore store, Clock clock, ScheduledExecutorService scheduler,
            Executor renewals, IdempotencyScope scope, LeaseToken token, Instant leaseExpiresAt,
            Duration leaseDuration, Duration maxAttemptDuration) {
        Heartbeat heartbeat = new Heartbeat(store, clock, renewals, scope, token, leaseExpiresAt, leaseDuration,
                maxAttemptDuration);
        heartbeat.schedule(scheduler);
        return heartbeat;
    }

    /** The scheduler's beat: hands the renewal to the renewal executor, unless the last one is still under way. */
    private void tick() {
        if (refused || stopped || !renewing.compareAndSet(false, true)) {
            return;
        }
        try {
            renewals.execute(() -> {
                try {
                    beat();
                } finally {
                    renewing.set(false);
                }
            });
        } catch (Throwable rejected) {
            // Also an Error (no thread could be made): the scheduler would never run this tick again.
            renewing.set(false);
            log.warn("Could not start the renewal of operation={} key={} attempt={} ({}); trying again at the next "
                    + "beat", scope.operation(), scope.key(), token.attempt(), rejected.getClass().getName());
        }
    }

    /** Whether the attempt may no longer own its record. */
    boolean isLost() {
        return refused || !confirmedUntil.isAfter(clock.instant());
    }

    /** Renews the lease once; the renewal executor runs it. */
    void beat() {
        if (refused || stopped) {
            return;
        }
        Instant now = clock.instant();
        if (!now.isBefore(renewUntil)) {
            stopped = true;
            cancel();
            log.warn("Attempt too long: operation={} key={} attempt={} has run for the maximum attempt duration; "
                    + "its lease is no longer renewed, and another instance may take the record over once it runs "
                    + "out", scope.operation(), scope.key(), token.attempt());
            return;
        }
        Instant until = now.plus(leaseDuration);
        try {
            if (store.renew(scope, token, until, now)) {
                confirmedUntil = until;
            } else if (!stopped) {
                // A beat that raced the attempt's own completion finds the record finished: no loss to report.
                refused = true;
                cancel();
                log.warn("Lease lost: operation={} key={} attempt={} was taken over by a later attempt",
                        scope.operation(), scope.key(), token.attempt());
            }
        } catch (RuntimeException e) {
            // Only the type: a store's message is its own to log.
            log.debug("Could not renew the lease of operation={} key={} attempt={} ({}); trying again at the next "
                    + "beat", scope.operation(), scope.key(), token.attempt(), e.getClass().getSimpleName());
        } catch (Throwable e) {
            // A scheduled task that throws is never run again: one Error (a class that failed to load, a stack or
            // memory running out) would end the renewals while the work runs, and another instance would take the
            // record over (issue 39). It is tried again at the next beat, as any failed renewal.
            log.warn("Could not renew the lease of operation={} key={} attempt={} ({}); trying again at the next "
                    + "beat", scope.operation(), scope.key(), token.attempt(), e.getClass().getName());
        }
    }

    /** Stops renewing; the attempt is about to store its outcome. */
    void stop() {
        stopped = true;
        cancel();
    }

    private void cancel() {
        ScheduledFuture<?> scheduled = beats;
        if (scheduled != null) {
            scheduled.cancel(false);
        }
    }
}
