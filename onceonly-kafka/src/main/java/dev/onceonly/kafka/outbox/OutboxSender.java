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
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.support.SendResult;

/** The Kafka side of a round: sends its rows as records and waits for every acknowledgement, or fails. */
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
     * Sends {@code rows} in order and returns once all were acknowledged, within the send timeout.
     *
     * @throws OutboxRelayException if a send failed, the timeout passed or the thread was interrupted
     */
    void send(List<OutboxRow> rows) {
        long deadline = System.nanoTime() + sendTimeout.toNanos();
        List<CompletableFuture<SendResult<String, String>>> acks = new ArrayList<>(rows.size());
        try {
            for (OutboxRow row : rows) {
                acks.add(kafka.send(record(row)));
            }
            for (CompletableFuture<SendResult<String, String>> ack : acks) {
                ack.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        } catch (ExecutionException e) {
            throw sendFailed(Objects.requireNonNullElse(e.getCause(), e));
        } catch (TimeoutException e) {
            throw new OutboxRelayException("Publishing outbox " + table + " failed: no acknowledgement within "
                    + sendTimeout, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OutboxRelayException("Publishing outbox " + table + " was interrupted", e);
        } catch (RuntimeException e) {
            throw sendFailed(e);
        }
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
