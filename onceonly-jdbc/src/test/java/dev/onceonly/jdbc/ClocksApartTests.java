package dev.onceonly.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotentResult;
import dev.onceonly.RequestInProgressException;
import dev.onceonly.Retention;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two instances whose clocks are further apart than a lease (issue 39): the one ahead neither takes over the other's
 * live attempt nor treats its record as expired early, because both run on the database's time
 * ({@link DatabaseClock}). Without it, the instance ahead took the attempt over and ran the work a second time.
 */
@Timeout(60)
interface ClocksApartTests extends JdbcStoreFixture {

    /** Further than the lease (and the retention) of the engines below. */
    Duration AHEAD = Duration.ofHours(2);
    Duration LEASE = Duration.ofSeconds(30);

    private IdempotencyEngine instance(Duration hostClockAhead, Duration retention) {
        Clock host = Clock.offset(Clock.systemUTC(), hostClockAhead);
        return IdempotencyEngine.builder(jdbcStore()).clock(DatabaseClock.of(dataSource(), dialect(), host))
                .leaseDuration(LEASE).waitTimeout(Duration.ZERO).retention(new Retention(retention, retention))
                .build();
    }

    @Test
    default void databaseClockTellsTheDatabasesTimeWhateverTheHostsClockSays() {
        DatabaseClock clock = DatabaseClock.of(dataSource(), dialect(), Clock.offset(Clock.systemUTC(), AHEAD));

        // The database runs on this machine: its time is this machine's, up to a round trip.
        assertThat(Duration.between(Instant.now(), clock.instant()).abs()).isLessThan(Duration.ofSeconds(5));
        assertThat(clock.offset().plus(AHEAD).abs()).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    default void instanceWhoseClockIsAheadByMoreThanALeaseDoesNotTakeOverALiveAttempt() throws Exception {
        IdempotencyScope scope = newScope();
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        IdempotencyEngine onTime = instance(Duration.ZERO, Duration.ofDays(1));
        IdempotencyEngine ahead = instance(AHEAD, Duration.ofDays(1));

        CompletableFuture<IdempotentResult<String>> first = CompletableFuture.supplyAsync(() -> {
            try {
                return onTime.execute(scope, fingerprint(), new TextCodec(), attempt -> {
                    running.countDown();
                    if (!release.await(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("never released");
                    }
                    return "ran " + runs.incrementAndGet();
                });
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

        assertThatThrownBy(() -> ahead.execute(scope, fingerprint(), new TextCodec(),
                attempt -> "ran " + runs.incrementAndGet())).isInstanceOf(RequestInProgressException.class);
        release.countDown();

        assertThat(first.get(30, TimeUnit.SECONDS).value()).isEqualTo("ran 1");
        assertThat(ahead.execute(scope, fingerprint(), new TextCodec(), attempt -> "ran " + runs.incrementAndGet())
                .value()).isEqualTo("ran 1");
        assertThat(runs).hasValue(1);
    }

    @Test
    default void instanceWhoseClockIsAheadByMoreThanTheRetentionReplaysTheRecord() {
        IdempotencyScope scope = newScope();
        AtomicInteger runs = new AtomicInteger();
        IdempotencyEngine onTime = instance(Duration.ZERO, Duration.ofHours(1));
        IdempotencyEngine ahead = instance(AHEAD, Duration.ofHours(1));

        onTime.execute(scope, fingerprint(), new TextCodec(), attempt -> "ran " + runs.incrementAndGet());
        IdempotentResult<String> retry = ahead.execute(scope, fingerprint(), new TextCodec(),
                attempt -> "ran " + runs.incrementAndGet());

        assertThat(retry.replayed()).isTrue();
        assertThat(retry.value()).isEqualTo("ran 1");
        assertThat(runs).hasValue(1);
    }

    private static IdempotencyScope newScope() {
        return IdempotencyScope.of("clocks", "pay", IdempotencyKey.of(UUID.randomUUID().toString()));
    }

    private static Fingerprint fingerprint() {
        return Fingerprint.builder().method("POST").route("/clocks").build();
    }
}
