package dev.onceonly.kafka.inbox;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

/**
 * Gives a record's message key from its content, for messages without an event id: a business key that identifies
 * one event, not one kind of event, the same on every redelivery and for every duplicate the producer sent. Such
 * as {@code orderId:version} (the aggregate's version the event carries), or {@code orderId:eventType} only for a
 * transition that happens once per order (paid, refunded): for an event that recurs (a second
 * {@code OrderUpdated}) that key makes every later one a duplicate for the whole retention, and it is dropped.
 * Named by {@link IdempotentListener#key()}. Must be thread-safe.
 */
@FunctionalInterface
public interface MessageKeyExtractor {

    /** The key, or {@code null} if the record has none: it is then refused, never handled unprotected. */
    @Nullable String keyOf(ConsumerRecord<?, ?> record);
}
