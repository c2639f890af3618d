package dev.onceonly.spring.boot;

import java.time.Clock;
import java.util.Objects;

/**
 * OnceOnly's one clock, which the engine, the Redis layer, the workers, the cleanup and the outbox relay read: the
 * application's {@code Clock} bean (or the system's), and with the JDBC store the database's time
 * ({@code onceonly.jdbc.clock-sync}), so that instances whose host clocks differ agree on leases and expiries.
 * A bean of its own rather than a {@code Clock} bean, so that the application's clock stays its own.
 *
 * @param clock the clock
 */
public record OnceOnlyClock(Clock clock) {

    public OnceOnlyClock {
        Objects.requireNonNull(clock, "clock");
    }
}
