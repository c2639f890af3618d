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
import java.util.concurrent.atomic.AtomicReference;
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
    /** Reads per measurement: the one of the shortest round trip is the most precise. */
    private static final int SAMPLES = 3;
    /** A round trip longer than this measures too loosely (half of it is the error): the last correction stays. */
    private static final Duration MAX_ROUND_TRIP = Duration.ofSeconds(2);

    private final DataSource dataSource;
    private final JdbcDialect dialect;
    private final String currentTime;
    private final Clock host;
    /** Shared with the copies {@link #withZone} makes, so that a measurement corrects them all. */
    private final AtomicReference<Duration> offset;

    private DatabaseClock(DataSource dataSource, JdbcDialect dialect, String currentTime, Clock host,
            AtomicReference<Duration> offset) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.currentTime = currentTime;
        this.host = host;
        this.offset = offset;
    }

    /** Whether the dialect can read the database's time; a dialect of your own may not. */
    public static boolean supports(JdbcDialect dialect) {
        return dialect.currentTime() != null;
    }

    /**
     * A clock on the database's time, measured once now (the host's time until a measurement succeeds).
     *
     * @throws IllegalArgumentException if the dialect cannot read the database's time ({@link #supports})
     */
    public static DatabaseClock of(DataSource dataSource, JdbcDialect dialect, Clock host) {
        String currentTime = Objects.requireNonNull(dialect, "dialect").currentTime();
        if (currentTime == null) {
            throw new IllegalArgumentException("The dialect " + dialect.name() + " cannot read the database's time");
        }
        DatabaseClock clock = new DatabaseClock(Objects.requireNonNull(dataSource, "dataSource"), dialect,
                currentTime, Objects.requireNonNull(host, "host"), new AtomicReference<>(Duration.ZERO));
        clock.synchronize();
        return clock;
    }

    /**
     * Measures how far the host clock is from the database's and corrects by it from now on: of a few reads, the
     * one with the shortest round trip, if that is short enough to be precise. A database that does not answer
     * in time leaves the last correction in place.
     *
     * @return whether the correction was measured anew
     */
    public boolean synchronize() {
        Duration best = null;
        Duration bestRoundTrip = null;
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            // A database that does not answer at all (a partition) holds this thread no longer than a slow one.
            statement.setQueryTimeout((int) MAX_ROUND_TRIP.toSeconds());
            for (int i = 0; i < SAMPLES; i++) {
                Instant sent = host.instant();
                Instant database;
                try (ResultSet result = statement.executeQuery(currentTime)) {
                    result.next();
                    database = dialect.getInstant(result, "now");
                }
                Duration roundTrip = Duration.between(sent, host.instant());
                if (database != null && (bestRoundTrip == null || roundTrip.compareTo(bestRoundTrip) < 0)) {
                    // The database read its clock about halfway through the round trip.
                    best = Duration.between(sent.plus(roundTrip.dividedBy(2)), database);
                    bestRoundTrip = roundTrip;
                }
            }
        } catch (SQLException e) {
            // Only the state: the driver's message can quote connection values.
            log.warn("Could not read the database's time (SQLState {}); keeping the last correction, {}",
                    e.getSQLState(), offset.get());
            return false;
        }
        if (best == null || bestRoundTrip == null) {
            log.warn("The database did not tell its time; keeping the last correction, {}", offset.get());
            return false;
        }
        if (bestRoundTrip.compareTo(MAX_ROUND_TRIP) > 0) {
            log.warn("The database's time took {} to read; keeping the last correction, {}", bestRoundTrip,
                    offset.get());
            return false;
        }
        Duration previous = offset.getAndSet(best);
        if (best.minus(previous).abs().compareTo(Duration.ofSeconds(1)) > 0) {
            log.warn("This host's clock is {} from the database's; OnceOnly's leases and expiries follow the "
                    + "database's", best.negated());
        }
        return true;
    }

    /** How far the database's clock is ahead of the host's, as last measured. */
    public Duration offset() {
        return offset.get();
    }

    @Override
    public Instant instant() {
        return host.instant().plus(offset.get());
    }

    @Override
    public ZoneId getZone() {
        return host.getZone();
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return new DatabaseClock(dataSource, dialect, currentTime, host.withZone(zone), offset);
    }

    @Override
    public String toString() {
        return "DatabaseClock[" + host + " " + offset.get() + "]";
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
