package dev.onceonly;

import static dev.onceonly.TestRequests.TEXT;
import static dev.onceonly.TestRequests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.IdempotencyRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** How long each kind of record is kept: success, final failure, abandoned attempt. Issue 12. */
class RetentionTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration DAY = Duration.ofDays(1);

    private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
    private final AdjustableClock clock = new AdjustableClock(Instant.parse("2030-01-01T00:00:00Z"));
    private final Instant start = clock.instant();
    private final IdempotencyScope scope = new IdempotencyScope("alice", "create-order",
            IdempotencyKey.of(UUID.randomUUID().toString()));

    private IdempotencyEngine engine(Retention retention) {
        return IdempotencyEngine.builder(store).clock(clock).leaseDuration(LEASE).retention(retention)
                .replayCache(Duration.ZERO, 1).build();
    }

    private IdempotencyRecord record() {
        return store.find(scope).orElseThrow();
    }

    @Test
    void successKeepsTheExpiryItsClaimSetWhenAbandonedRecordsAreKeptAsLong() {
        engine(new Retention(DAY, Duration.ofHours(1))).execute(scope, request("a"), TEXT, attempt -> {
            clock.advance(Duration.ofSeconds(2));
            return "done";
        });

        assertThat(record().expiresAt()).isEqualTo(start.plus(LEASE).plus(DAY));
    }

    @Test
    void abandonedAttemptIsKeptForItsOwnRetentionAfterItsLease() {
        Duration week = Duration.ofDays(7);
        IdempotencyEngine engine = engine(new Retention(DAY, Duration.ofHours(1), week));
        engine.execute(scope, request("a"), TEXT, attempt -> {
            assertThat(record().expiresAt()).isEqualTo(start.plus(LEASE).plus(week));
            clock.advance(Duration.ofSeconds(2));
            return "done";
        });

        assertThat(record().expiresAt()).isEqualTo(start.plusSeconds(2).plus(DAY));
    }

    @Test
    void shortAbandonedRetentionLetsADeadAttemptGoSoonWhileSuccessesStay() {
        Duration hour = Duration.ofHours(1);
        IdempotencyEngine engine = engine(new Retention(DAY, hour, Duration.ofMinutes(10)));
        engine.execute(scope, request("a"), TEXT, attempt -> {
            assertThat(record().expiresAt()).isEqualTo(start.plus(LEASE).plus(Duration.ofMinutes(10)));
            return "done";
        });

        assertThat(record().expiresAt()).isEqualTo(start.plus(DAY));
    }

    @Test
    void finalFailureIsKeptForTheFailedRetention() {
        engine(new Retention(DAY, Duration.ofHours(1))).execute(scope, request("a"), TestRequests.withStatus(422),
                attempt -> "declined");

        assertThat(record().expiresAt()).isEqualTo(start.plus(Duration.ofHours(1)));
    }

    @Test
    void overrideSetsOnlyWhatItNamesAndAnUnsetAbandonedRetentionFollowsTheSucceededOne() {
        Retention base = new Retention(DAY, Duration.ofHours(1), Duration.ofDays(3));

        assertThat(base.overriddenBy(Duration.ofDays(7), null, null))
                .isEqualTo(new Retention(Duration.ofDays(7), Duration.ofHours(1)));
        assertThat(base.overriddenBy(null, Duration.ofMinutes(5), null))
                .isEqualTo(new Retention(DAY, Duration.ofMinutes(5), Duration.ofDays(3)));
        assertThat(base.overriddenBy(null, null, Duration.ofMinutes(1)).abandonedOrSucceeded())
                .isEqualTo(Duration.ofMinutes(1));
        assertThat(new Retention(DAY, DAY).abandonedOrSucceeded()).isEqualTo(DAY);
    }

    @Test
    void abandonedRetentionIsCheckedLikeTheOthers() {
        assertThatThrownBy(() -> new Retention(DAY, DAY, Duration.ZERO))
                .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("retention.abandoned");
        assertThatThrownBy(() -> new Retention(DAY, DAY, Duration.ofDays(3651)))
                .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("retention.abandoned");
    }
}
