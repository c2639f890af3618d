package dev.onceonly.spring.boot.health;

import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.spi.IdempotencyStore;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * UP while the store answers a {@link IdempotencyStore#find find} of a probe scope that no request can have
 * (owners starting with {@code ~} are reserved: a resolved owner that starts with one gets another); on the JDBC
 * store that is one primary-key lookup that matches no row, so it reads no record and locks nothing. DOWN when the
 * store fails, with only the exception's type and, if a {@link SQLException} is among its causes, its SQLState:
 * never an exception message, which for a database error can quote row or connection values.
 *
 * <p>Probes the store bean itself, not the engine's decorated store, so that health checks do not count as
 * store operations in the metrics. On the JDBC store a probe waits at most for the pool's connection timeout.
 */
public final class IdempotencyStoreHealthIndicator implements HealthIndicator {

    /** The scope the probe looks up: reserved owner, so no record ever has it. */
    static final IdempotencyScope PROBE = IdempotencyScope.of("~onceonly-health", "~probe",
            IdempotencyKey.of("onceonly-health-probe"));

    private final IdempotencyStore store;

    /** @param store the store to probe: the store bean, undecorated */
    public IdempotencyStoreHealthIndicator(IdempotencyStore store) {
        this.store = store;
    }

    @Override
    public Health health() {
        try {
            store.find(PROBE);
            return Health.up().build();
        } catch (RuntimeException e) {
            Health.Builder down = Health.down().withDetail("error", e.getClass().getName());
            String sqlState = sqlState(e);
            if (sqlState != null) {
                down.withDetail("sqlState", sqlState);
            }
            return down.build();
        }
    }

    private static @Nullable String sqlState(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql) {
                return sql.getSQLState();
            }
        }
        return null;
    }
}
