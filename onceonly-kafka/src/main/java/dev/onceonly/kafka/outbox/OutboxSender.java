package dev.onceonly.kafka.outbox;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.springframework.kafka.KafkaException;
import org.apache.kafka.common.errors.RetriableException;
import org.jspecify.annotations.Nullable;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.support.SendResult;

/** The Kafka side of a round: sends its rows as records and waits for their acknowledgements. */
final class OutboxSender {

    private final KafkaOperations<String, String> kafka;
    private final Function<String, String> topicForEventType;
    private final Duration sendTimeout;
    private final String table;

    OutboxSender(KafkaOperations<String, String> kafka, Function<String, String> topicForEventType,
            Duration sendTimeout, String table) {
        this.kafka = kafka;
        this.topicForEventType = topicForEventType;
        this.sendTimeout = sendTimeout;
        this.table = table;
    }

    /**
     * What a send came to: the rows the broker acknowledged, and the first failure of the others.
     *
     * @param acknowledged in the order sent
     * @param failure why the other rows were not, or {@code null} if every row was acknowledged
     * @param refusedForGood the rows whose failure no retry changes (too large, refused by the producer, no topic
     *     for their type), as opposed to a timeout or an unreachable broker
     */
    record Sent(List<OutboxRow> acknowledged, @Nullable OutboxRelayException failure,
            List<OutboxRow> refusedForGood) {
    }

    /**
     * Sends {@code rows} in order and waits, within the send timeout, for every acknowledgement. A row that cannot
     * be sent (refused, not acknowledged in time, no topic for its type) fails alone: the others are acknowledged
     * all the same, as each row is the head of its own aggregate.
     *
     * @throws OutboxRelayException if the thread was interrupted; nothing counts as acknowledged then
     */
    Sent send(List<OutboxRow> rows) {
        long deadline = System.nanoTime() + sendTimeout.toNanos();
        List<CompletableFuture<SendResult<String, String>>> acks = new ArrayList<>(rows.size());
        OutboxRelayException failure = null;
        for (OutboxRow row : rows) {
            try {
                acks.add(kafka.send(record(row)));
            } catch (RuntimeException e) {
                acks.add(CompletableFuture.failedFuture(e));
            }
        }
        List<OutboxRow> acknowledged = new ArrayList<>(rows.size());
        List<OutboxRow> refusedForGood = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            try {
                acks.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                acknowledged.add(rows.get(i));
            } catch (ExecutionException e) {
                Throwable cause = Objects.requireNonNullElse(e.getCause(), e);
                if (!isRetriable(cause)) {
                    refusedForGood.add(rows.get(i));
                }
                failure = failure != null ? failure : sendFailed(cause);
            } catch (TimeoutException e) {
                failure = failure != null ? failure : new OutboxRelayException("Publishing outbox " + table
                        + " failed: no acknowledgement within " + sendTimeout, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new OutboxRelayException("Publishing outbox " + table + " was interrupted", e);
            }
        }
        return new Sent(acknowledged, failure, refusedForGood);
    }

    /** Kafka's own classification: a timeout or an unavailable broker may pass, a record too large never does. */
    private static boolean isRetriable(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof RetriableException) {
                return true;
            }
        }
        return false;
    }

    private ProducerRecord<String, String> record(OutboxRow row) {
        ProducerRecord<String, String> record = new ProducerRecord<>(topicForEventType.apply(row.eventType()),
                row.aggregateId(), row.payload());
        record.headers().add(OutboxRelay.EVENT_ID_HEADER, row.eventId().getBytes(StandardCharsets.UTF_8));
        record.headers().add(OutboxRelay.EVENT_TYPE_HEADER, row.eventType().getBytes(StandardCharsets.UTF_8));
        return record;
    }

    /** Spring wraps the client's error in a KafkaProducerException that carries the record: keep only the error. */
    private OutboxRelayException sendFailed(Throwable failure) {
        Throwable error = failure instanceof KafkaException && failure.getCause() != null
                ? failure.getCause() : failure;
        return new OutboxRelayException("Publishing outbox " + table + " failed: a send was refused ("
                + error.getClass().getSimpleName() + ")", error);
    }
}
