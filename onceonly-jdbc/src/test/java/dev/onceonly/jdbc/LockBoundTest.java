package dev.onceonly.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The lock bound each dialect sends with a claim's statements: the remaining wait, never under 128 ms (a shorter one
 * refused fresh keys that met a lock not their own), and never a whole second when less is left (issue 8: a claim
 * without wait blocked a pooled connection that long). What PostgreSQL makes of its bound is pinned by
 * {@code PostgresIdempotencyStoreIT}.
 */
class LockBoundTest {

    private static final String CLAIM = "INSERT …";

    @Test
    void postgresBoundsTheLockWaitsOfTheClaimsWritesAndLiftsTheBoundWhereTheCallersTransactionGoesOn() {
        PostgresDialect postgres = new PostgresDialect();

        assertThat(postgres.boundedWrite(CLAIM, Duration.ZERO, false))
                .isEqualTo("SET LOCAL lock_timeout = '128ms'; INSERT …");
        assertThat(postgres.boundedWrite(CLAIM, Duration.ofMillis(2500), true)).isEqualTo("SELECT set_config("
                + "'onceonly.saved_lock_timeout', current_setting('lock_timeout'), true), set_config('lock_timeout', "
                + "'2048ms', true); INSERT …; SELECT set_config('lock_timeout', "
                + "current_setting('onceonly.saved_lock_timeout'), true)");
        assertThat(postgres.boundedRead("SELECT …", Duration.ZERO)).as("a plain read never waits for a row lock")
                .isEqualTo("SELECT …");
    }

    @Test
    void mariaDbBoundsTheStatementBelowOneSecondAndItsLockWaitsInWholeSecondsAbove() {
        assertThat(MariaDbDialect.bounded(CLAIM, Duration.ZERO))
                .isEqualTo("SET STATEMENT innodb_lock_wait_timeout = 1, max_statement_time = 0.128 FOR INSERT …");
        assertThat(MariaDbDialect.bounded(CLAIM, Duration.ofMillis(999)))
                .isEqualTo("SET STATEMENT innodb_lock_wait_timeout = 1, max_statement_time = 0.512 FOR INSERT …");
        assertThat(MariaDbDialect.bounded(CLAIM, Duration.ofMillis(1999)))
                .isEqualTo("SET STATEMENT innodb_lock_wait_timeout = 1 FOR INSERT …");
        assertThat(MariaDbDialect.bounded(CLAIM, Duration.ofSeconds(3)))
                .isEqualTo("SET STATEMENT innodb_lock_wait_timeout = 3 FOR INSERT …");
    }
}
