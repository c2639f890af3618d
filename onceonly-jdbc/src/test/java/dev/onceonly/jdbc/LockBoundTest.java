package dev.onceonly.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The lock bound each dialect sends with a claim's statements: the remaining wait, never under 128 ms (a shorter one
 * refused fresh keys that met a lock not their own), and never a whole second when less is left (issue 8: a claim
 * without wait blocked a pooled connection that long).
 */
class LockBoundTest {

    private static final String CLAIM = "INSERT …";

    @Test
    void postgresBoundsTheClaimInItsTransactionToThePowerOfTwoBelowTheWaitAndNeverUnder128Milliseconds() {
        PostgresDialect postgres = new PostgresDialect();

        assertThat(postgres.boundedWrite(CLAIM, Duration.ZERO, true))
                .isEqualTo("SET LOCAL lock_timeout = '128ms'; INSERT …; SET LOCAL lock_timeout = DEFAULT");
        assertThat(postgres.boundedWrite(CLAIM, Duration.ofMillis(300), true))
                .startsWith("SET LOCAL lock_timeout = '256ms';");
        assertThat(postgres.boundedWrite(CLAIM, Duration.ofSeconds(2), true))
                .startsWith("SET LOCAL lock_timeout = '1024ms';");
        assertThat(postgres.boundedWrite(CLAIM, Duration.ZERO, false)).as("SET LOCAL does nothing outside one")
                .isEqualTo(CLAIM);
    }

    @Test
    void mariaDbBoundsTheStatementBelowOneSecondAndItsLockWaitsInWholeSecondsAbove() {
        MariaDbDialect mariaDb = new MariaDbDialect();

        assertThat(mariaDb.boundedRead(CLAIM, Duration.ZERO))
                .isEqualTo("SET STATEMENT innodb_lock_wait_timeout = 1, max_statement_time = 0.128 FOR INSERT …");
        assertThat(mariaDb.boundedWrite(CLAIM, Duration.ofMillis(999), true))
                .isEqualTo("SET STATEMENT innodb_lock_wait_timeout = 1, max_statement_time = 0.512 FOR INSERT …");
        assertThat(mariaDb.boundedWrite(CLAIM, Duration.ofMillis(1999), false))
                .isEqualTo("SET STATEMENT innodb_lock_wait_timeout = 1 FOR INSERT …");
        assertThat(mariaDb.boundedRead(CLAIM, Duration.ofSeconds(3)))
                .isEqualTo("SET STATEMENT innodb_lock_wait_timeout = 3 FOR INSERT …");
    }
}
