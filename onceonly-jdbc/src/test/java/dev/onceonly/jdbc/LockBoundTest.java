package dev.onceonly.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The lock bound each dialect sends with a claim's statements: the remaining wait, never under 128 ms (a shorter one
 * refused fresh keys that met a lock not their own), and never a whole second when less is left (issue 8: a claim
 * without wait blocked a pooled connection that long). PostgreSQL's bound with its own driver, in milliseconds, is
 * pinned by {@code PostgresIdempotencyStoreIT}, which needs the database for a statement of that driver.
 */
class LockBoundTest {

    private static final String CLAIM = "INSERT …";

    @Test
    void postgresBoundsTheStatementOfAnotherDriverInTheWholeSecondsOfTheJdbcStandardRoundedUp() throws Exception {
        PostgresDialect postgres = new PostgresDialect();

        assertThat(queryTimeoutsSet(postgres, Duration.ZERO)).containsExactly(1);
        assertThat(queryTimeoutsSet(postgres, Duration.ofMillis(2500))).containsExactly(3);
    }

    /**
     * The query timeouts the dialect sets on a claim write prepared on a connection of a driver that is not
     * PostgreSQL's own: here a stand-in that records them, since no such driver is at hand.
     */
    private static List<Integer> queryTimeoutsSet(PostgresDialect postgres, Duration lockWait) throws Exception {
        List<Integer> timeouts = new ArrayList<>();
        PreparedStatement statement = (PreparedStatement) Proxy.newProxyInstance(LockBoundTest.class.getClassLoader(),
                new Class<?>[] {PreparedStatement.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "isWrapperFor" -> false;
                    case "setQueryTimeout" -> timeouts.add((Integer) args[0]);
                    case "close" -> null;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        Connection connection = (Connection) Proxy.newProxyInstance(LockBoundTest.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("prepareStatement") && args.length == 1 && CLAIM.equals(args[0])) {
                        return statement;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        postgres.prepareBoundedWrite(connection, CLAIM, lockWait).close();
        return timeouts;
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
