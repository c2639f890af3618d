package dev.onceonly.kafka.outbox;

import dev.onceonly.jdbc.SqlFailure;
import dev.onceonly.spi.Purgeable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.core.KafkaOperations;

/**
 * Publishes the rows of an outbox table to Kafka at least once, in order per aggregate, surviving crashes, safe to
 * run on every instance at once. Consumers deduplicate by the event id header; a row may be sent more than once
 * (a crash after the send and before the row is marked), but an aggregate's rows are first sent in id order.
 *
 * <p><b>The table</b> (its name is configurable):
 * <ul>
 *   <li>{@code id} bigint, increasing in insert order ({@code bigserial}, {@code AUTO_INCREMENT});</li>
 *   <li>{@code aggregate_id}, the record key (as text), so an aggregate's events share a partition;</li>
 *   <li>{@code event_type} varchar, the {@value #EVENT_TYPE_HEADER} header and the input of the topic choice;</li>
 *   <li>{@code event_id} varchar, the deterministic id the producer derived, the {@value #EVENT_ID_HEADER}
 *       header;</li>
 *   <li>{@code payload}, JSON ({@code jsonb}, {@code JSON} or text), the record value;</li>
 *   <li>{@code created_at}, and {@code published_at}, null until the relay published the row.</li>
 * </ul>
 * Indexes: PostgreSQL {@code (aggregate_id, id) WHERE published_at IS NULL} and {@code (id) WHERE published_at IS
 * NULL}; MariaDB {@code (aggregate_id, published_at, id)} and {@code (published_at, id)}. Rows of one aggregate must
 * commit in id order, as they do when the business transaction locks the aggregate (a later id committed first would
 * be published first).
 *
 * <p><b>How a round works:</b>
 * <ol>
 *   <li>Borrow a connection; on MariaDB take the table's named lock or, when another relay holds it, publish
 *       nothing (see the dialects).</li>
 *   <li>In one READ COMMITTED transaction, select up to {@code batchSize} head rows: unpublished rows with no earlier
 *       unpublished row of the same aggregate, oldest first (PostgreSQL locks them {@code FOR UPDATE SKIP LOCKED}, so
 *       concurrent rounds take other aggregates). So a row is never sent before its predecessor was published.</li>
 *   <li>Send each row and wait for the acknowledgements, all within {@code sendTimeout}.</li>
 *   <li>Set {@code published_at} of the acknowledged rows and commit. A row that could not be sent (refused, not
 *       acknowledged in time) stays unpublished and holds back its own aggregate only; this relay tries it again
 *       after a pause that doubles from 1 s to 5 min, so that such rows cannot crowd out the others. A failure of
 *       the database rolls the round back. Either way the rows are sent again later, with the same event ids.</li>
 * </ol>
 * {@link #publishPending()} runs rounds until one publishes nothing; {@link OutboxPoller} runs it periodically.
 * The producer's {@code max.block.ms} should not exceed the send timeout, as a send may block that long first. The
 * template's producer listener should not log record values: Spring's default {@code LoggingProducerListener} logs
 * the key and payload of a failed send unless {@code setIncludeContents(false)}.
 * Logs and exceptions name error types and SQLStates, never payloads or database error texts. Thread-safe.
 */
public final class OutboxRelay {

    /** The header carrying the row's {@code event_id}, UTF-8. */
    public static final String EVENT_ID_HEADER = "onceonly-event-id";
    /** The header carrying the row's {@code event_type}, UTF-8. */
    public static final String EVENT_TYPE_HEADER = "onceonly-event-type";

    private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);
    private static final Pattern TABLE_NAME = Pattern.compile("([A-Za-z_][A-Za-z0-9_]{0,62}\\.)?"
            + "[A-Za-z_][A-Za-z0-9_]{0,62}");

    private final DataSource dataSource;
    private final String table;
    private final int batchSize;
    private final OutboxSender sender;
    private final Clock clock;
    private final OutboxDialect dialect;
    private final String selectHeadsSql;
    private final String markPublishedPrefix;
    private final RefusedRows refused = new RefusedRows();
    private final String oldestUnpublishedSql;
    private final AtomicLong publishedRows = new AtomicLong();
    private final AtomicLong refusedSends = new AtomicLong();

    private OutboxRelay(Builder builder, Function<String, String> topicForEventType) {
        this.dataSource = builder.dataSource;
        this.table = builder.table;
        this.sender = new OutboxSender(builder.kafka, topicForEventType, builder.sendTimeout, table);
        this.batchSize = builder.batchSize;
        this.clock = builder.clock;
        this.dialect = OutboxDialect.of(dataSource, table);
        this.selectHeadsSql = dialect.selectHeads(table);
        this.markPublishedPrefix = "UPDATE " + table + " SET published_at = ? WHERE published_at IS NULL AND id IN (";
        this.oldestUnpublishedSql = "SELECT min(created_at) FROM " + table + " WHERE published_at IS NULL";
    }

    /**
     * @param dataSource the database of the outbox table
     * @param table the outbox table, a plain SQL identifier, optionally schema-qualified
     * @param kafka a non-transactional template whose value serializer takes the payload's JSON text
     * @throws IllegalArgumentException if {@code table} is not a plain SQL identifier
     */
    public static Builder builder(DataSource dataSource, String table, KafkaOperations<String, String> kafka) {
        return new Builder(dataSource, table, kafka);
    }

    /** The outbox table this relay publishes. */
    public String table() {
        return table;
    }

    /**
     * The rows of this relay's table published more than {@code retention} ago, for a cleanup to delete
     * ({@code BackgroundCleanup} with Spring Boot, {@code onceonly.kafka.outbox.retention}).
     *
     * @throws IllegalArgumentException unless {@code retention} is positive
     */
    public Purgeable expiredPublishedRows(Duration retention) {
        return new PublishedRows(dataSource, table, retention, dialect);
    }

    /** Rows this relay has published since it was built, for metrics. */
    public long publishedRows() {
        return publishedRows.get();
    }

    /** Sends of this relay the broker refused or did not acknowledge in time, for metrics. */
    public long refusedSends() {
        return refusedSends.get();
    }

    /**
     * The {@code created_at} of the oldest unpublished row, by any relay: how far behind publishing is, for an alert.
     *
     * @return empty when every row is published
     * @throws OutboxRelayException if the database cannot be reached
     */
    public Optional<Instant> oldestUnpublished() {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(oldestUnpublishedSql);
             ResultSet result = statement.executeQuery()) {
            Timestamp oldest = result.next() ? result.getTimestamp(1) : null;
            return Optional.ofNullable(oldest).map(Timestamp::toInstant);
        } catch (SQLException e) {
            throw new OutboxRelayException("Reading the backlog of outbox " + table + " failed: "
                    + SqlFailure.describe(e), SqlFailure.of(e).toException());
        }
    }

    /**
     * Runs rounds until one publishes nothing: everything committed before the call is published when it returns
     * normally, unless, on MariaDB, another relay was running a round (that relay publishes it).
     *
     * @return the number of rows published
     * @throws OutboxRelayException if a round failed; the rows of earlier rounds stay published
     */
    public int publishPending() {
        int total = 0;
        int published;
        do {
            published = publishRound();
            total += published;
        } while (published > 0);
        return total;
    }

    private int publishRound() {
        try (Connection connection = dataSource.getConnection()) {
            if (!dialect.enterRound(connection)) {
                return 0;
            }
            try {
                return inTransaction(connection);
            } finally {
                leaveRound(connection);
            }
        } catch (SQLException e) {
            throw new OutboxRelayException("Publishing outbox " + table + " failed: " + SqlFailure.describe(e),
                    SqlFailure.of(e).toException());
        }
    }

    private int inTransaction(Connection connection) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        int isolation = connection.getTransactionIsolation();
        // READ COMMITTED: no gap locks on MariaDB, and no serialization failures where the pool defaults higher.
        connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        connection.setAutoCommit(false);
        boolean committed = false;
        try {
            Instant now = clock.instant();
            // Selected beyond the batch by as many as are held back, so that those cannot fill it.
            List<OutboxRow> heads = selectHeads(connection, batchSize + refused.heldBack(now)).stream()
                    .filter(row -> !refused.isHeldBack(row.id(), now)).limit(batchSize).toList();
            OutboxSender.Sent sent = heads.isEmpty() ? new OutboxSender.Sent(List.of(), null, List.of())
                    : sender.send(heads);
            List<OutboxRow> acknowledged = sent.acknowledged();
            // Held back from when the send gave up, which may be the whole send timeout after the round began.
            Instant sentAt = clock.instant();
            for (OutboxRow row : heads) {
                if (acknowledged.contains(row)) {
                    refused.published(row.id());
                } else if (sent.refusedForGood().contains(row) || !acknowledged.isEmpty()) {
                    // Refused for what it is, or while the broker took others: the row, not the broker, is the
                    // trouble. A round where nothing got through (the broker is away) holds nothing back.
                    refused.refused(row.id(), sentAt);
                }
            }
            if (!acknowledged.isEmpty()) {
                markPublished(connection, acknowledged);
            }
            connection.commit();
            committed = true;
            publishedRows.addAndGet(acknowledged.size());
            refusedSends.addAndGet(heads.size() - acknowledged.size());
            log.debug("Published {} rows of outbox {}", acknowledged.size(), table);
            OutboxRelayException failure = sent.failure();
            if (failure != null) {
                // A row that cannot be sent holds back its own aggregate only; the round's others are published.
                if (acknowledged.isEmpty()) {
                    throw failure;
                }
                log.warn("{} of {} rows of outbox {} could not be sent and are held back for a while ({})",
                        heads.size() - acknowledged.size(), heads.size(), table, failure.getMessage());
            }
            return acknowledged.size();
        } finally {
            if (!committed) {
                rollBack(connection);
            }
            restore(connection, autoCommit, isolation);
        }
    }

    private List<OutboxRow> selectHeads(Connection connection, int limit) throws SQLException {
        List<OutboxRow> rows = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(selectHeadsSql)) {
            statement.setInt(1, limit);
            try (ResultSet result = statement.executeQuery()) {
                while (result.next()) {
                    rows.add(new OutboxRow(result.getLong(1), result.getString(2), result.getString(3),
                            result.getString(4), result.getString(5)));
                }
            }
        }
        return rows;
    }

    /** One statement for the round (a JDBC batch on a dead PostgreSQL session fails with an AssertionError). */
    private void markPublished(Connection connection, List<OutboxRow> rows) throws SQLException {
        String sql = markPublishedPrefix + String.join(", ", Collections.nCopies(rows.size(), "?")) + ")";
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setTimestamp(1, Timestamp.from(clock.instant().truncatedTo(ChronoUnit.MICROS)));
            for (int i = 0; i < rows.size(); i++) {
                statement.setLong(i + 2, rows.get(i).id());
            }
            statement.executeUpdate();
        }
    }

    /** The round failed already; a rollback that fails too (the session died) changes nothing about that. */
    private void rollBack(Connection connection) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            log.debug("Rolling back a failed round of outbox {} failed too ({})", table, SqlFailure.describe(e));
        }
    }

    /** The pool resets what fails here, and a failure must not hide the round's own. */
    private void restore(Connection connection, boolean autoCommit, int isolation) {
        try {
            connection.setAutoCommit(autoCommit);
            connection.setTransactionIsolation(isolation);
        } catch (SQLException e) {
            log.debug("Restoring a connection of outbox {} failed ({})", table, SqlFailure.describe(e));
        }
    }

    /**
     * A named lock that could not be released would stay with its session in the pool and keep every other relay
     * out: the connection is aborted, so that the pool discards it and the database ends its session.
     */
    private void leaveRound(Connection connection) {
        try {
            dialect.leaveRound(connection);
        } catch (SQLException e) {
            log.warn("Leaving a round of outbox {} failed ({}); its connection is discarded", table,
                    SqlFailure.describe(e));
            try {
                connection.abort(Runnable::run);
            } catch (SQLException | SecurityException abortFailed) {
                log.warn("Discarding a connection of outbox {} failed ({})", table,
                        abortFailed.getClass().getSimpleName());
            }
        }
    }

    /** Builds an {@link OutboxRelay}; a topic, fixed or by event type, is required. */
    public static final class Builder {

        private final DataSource dataSource;
        private final String table;
        private final KafkaOperations<String, String> kafka;
        private @Nullable Function<String, String> topicForEventType;
        private int batchSize = 100;
        private Duration sendTimeout = Duration.ofSeconds(10);
        private Clock clock = Clock.systemUTC();

        private Builder(DataSource dataSource, String table, KafkaOperations<String, String> kafka) {
            if (!TABLE_NAME.matcher(table).matches()) {
                throw new IllegalArgumentException("The outbox table name must be a plain SQL identifier (letters, "
                        + "digits and '_', optionally schema-qualified)");
            }
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            this.table = table;
            this.kafka = Objects.requireNonNull(kafka, "kafka");
        }

        /** Publishes every row to {@code topic}. */
        public Builder topic(String topic) {
            Objects.requireNonNull(topic, "topic");
            return topicForEventType(eventType -> topic);
        }

        /** Publishes each row to the topic {@code topicForEventType} names for the row's {@code event_type}. */
        public Builder topicForEventType(Function<String, String> topicForEventType) {
            this.topicForEventType = Objects.requireNonNull(topicForEventType, "topicForEventType");
            return this;
        }

        /** The most head rows one round sends (default 100); a round sends at most one row per aggregate. */
        public Builder batchSize(int batchSize) {
            if (batchSize < 1) {
                throw new IllegalArgumentException("batchSize must be at least 1");
            }
            this.batchSize = batchSize;
            return this;
        }

        /** How long a round waits for all of its acknowledgements (default 10 s) before it fails. */
        public Builder sendTimeout(Duration sendTimeout) {
            if (sendTimeout.isNegative() || sendTimeout.isZero()) {
                throw new IllegalArgumentException("sendTimeout must be positive");
            }
            this.sendTimeout = sendTimeout;
            return this;
        }

        /** The clock of {@code published_at} (default the system clock, UTC). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Detects the database (PostgreSQL, MariaDB or MySQL) through one connection.
         *
         * @throws IllegalStateException if no topic was given
         * @throws IllegalArgumentException if the database is of another kind
         * @throws OutboxRelayException if the database cannot be reached
         */
        public OutboxRelay build() {
            if (topicForEventType == null) {
                throw new IllegalStateException("The outbox relay for " + table + " needs a topic");
            }
            return new OutboxRelay(this, topicForEventType);
        }
    }
}
