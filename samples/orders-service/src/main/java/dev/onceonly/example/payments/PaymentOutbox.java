package dev.onceonly.example.payments;

import java.sql.DatabaseMetaData;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;
import org.springframework.stereotype.Repository;

/**
 * The outbox of order events ({@code payment_outbox}): appended in the transaction that changed the order, so an
 * event exists exactly when its change committed. Unpublished rows ({@code published_at} null) wait for the outbox
 * relay, which publishes them to Kafka when events are enabled.
 */
@Repository
public class PaymentOutbox {

    private final JdbcClient jdbc;
    /** PostgreSQL's {@code jsonb} takes no text parameter without a cast; MariaDB's {@code JSON} is text. */
    private final String insert;

    public PaymentOutbox(JdbcClient jdbc, DataSource dataSource) throws MetaDataAccessException {
        this.jdbc = jdbc;
        String product = JdbcUtils.extractDatabaseMetaData(dataSource, DatabaseMetaData::getDatabaseProductName);
        String payload = "PostgreSQL".equals(product) ? "CAST(? AS jsonb)" : "?";
        this.insert = "INSERT INTO payment_outbox (aggregate_id, event_type, event_id, payload, created_at) "
                + "VALUES (?, ?, ?, " + payload + ", ?)";
    }

    /**
     * @param orderId the order the event is about
     * @param eventType such as {@code order.paid}
     * @param eventId derived from the idempotency scope that produced the event, the same however often its
     *     producer runs again
     * @param payload the event as a JSON object
     */
    public void append(long orderId, String eventType, String eventId, String payload, Instant createdAt) {
        jdbc.sql(insert)
                .params(orderId, eventType, eventId, payload,
                        Timestamp.from(createdAt.truncatedTo(ChronoUnit.MICROS)))
                .update();
    }
}
