package dev.onceonly.spring.boot.jdbc;

import dev.onceonly.IdempotencyEngineBuilder;
import dev.onceonly.jdbc.DatabaseClock;
import dev.onceonly.spring.boot.IdempotencyEngineCustomizer;
import org.springframework.core.Ordered;

/**
 * Puts the engine on the database's time ({@code onceonly.jdbc.clock-sync}): leases and expiries are instants
 * that one instance writes and another compares, so a host whose clock is off by more than a lease would take over
 * live attempts, and one off by more than a retention would run finished requests again (issue 39). A customizer,
 * not a {@code Clock} bean, so that the application's own clock stays its own; first, so that an application's
 * customizer may still set another clock.
 */
final class DatabaseTime implements IdempotencyEngineCustomizer, Ordered {

    private final DatabaseClock clock;

    DatabaseTime(DatabaseClock clock) {
        this.clock = clock;
    }

    @Override
    public void customize(IdempotencyEngineBuilder builder) {
        builder.clock(clock);
    }

    /** Measures the host's distance to the database's clock again (a host clock can be stepped or drift). */
    void synchronize() {
        clock.synchronize();
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
