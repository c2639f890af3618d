package dev.onceonly.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A clock that tells the database's time: this host's clock corrected by how far it is from the database's, as
 * last {@linkplain #synchronize() measured}. Leases and expiries are instants that one instance writes and another
 * compares with its own "now"; with every instance on the database's time, a host whose clock is minutes off
 * neither takes over a live attempt nor treats a record as expired early (issue 39), while the store keeps
 * comparing the instants it is given (its contract suite drives them with a test clock).
 *
 * <p>Between measurements it follows the host clock it wraps, so time moves on smoothly; an error of half a round
 * trip to the database remains. Thread-safe.
 */
public final class DatabaseClock extends Clock {

    private static final Logger log = LoggerFactory.getLogger(DatabaseClock.class);

    private final DataSource dataSource;
    private final String currentTime;
    private final JdbcDialect dialect;
    private final Clock host;
    private volatile Duration offset;

    private DatabaseClock(DataSource dataSource, JdbcDialect dialect, Clock host, Duration offset) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.currentTime = dialect.currentTime();
        this.host = host;
        this.offset = offset;
    }

    /** A clock on the database's time, measured once now (the host's time until a measurement succeeds). */
    public static DatabaseClock of(DataSource dataSource, JdbcDialect dialect, Clock host) {
        DatabaseClock clock = new DatabaseClock(Objects.requireNonNull(dataSource, "dataSource"),
                Objects.requireNonNull(dialect, "dialect"), Objects.requireNonNull(host, "host"), Duration.ZERO);
        clock.synchronize();
        return clock;
    }

    /**
     * Measures how far the host clock is from the database's and corrects by it from now on. A database that does
     * not answer leaves the last correction in place.
     *
     * @return whether the database answered
     */
    public boolean synchronize() {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            Instant sent = host.instant();
            Instant database;
            try (ResultSet result = statement.executeQuery(currentTime)) {
                result.next();
                database = dialect.getInstant(result, "now");
            }
            Instant received = host.instant();
            if (database == null) {
                return false;
            }
            // The database read its clock about halfway through the round trip.
            Instant hostThen = sent.plus(Duration.between(sent, received).dividedBy(2));
            Duration measured = Duration.between(hostThen, database);
            Duration previous = offset;
            offset = measured;
            if (measured.minus(previous).abs().compareTo(Duration.ofSeconds(1)) > 0) {
                log.warn("This host's clock is {} from the database's; OnceOnly's leases and expiries follow the "
                        + "database's", measured.negated());
            }
            return true;
        } catch (SQLException e) {
            // Only the state: the driver's message can quote connection values.
            log.warn("Could not read the database's time (SQLState {}); keeping the last correction, {}",
                    e.getSQLState(), offset);
            return false;
        }
    }

    /** How far the database's clock is ahead of the host's, as last measured. */
    public Duration offset() {
        return offset;
    }

    @Override
    public Instant instant() {
        return host.instant().plus(offset);
    }

    @Override
    public ZoneId getZone() {
        return host.getZone();
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return new DatabaseClock(dataSource, dialect, host.withZone(zone), offset);
    }

    @Override
    public String toString() {
        return "DatabaseClock[" + host + " " + offset + "]";
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return this == other;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }
}
