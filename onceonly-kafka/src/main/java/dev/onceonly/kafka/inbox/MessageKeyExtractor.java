package dev.onceonly.kafka.inbox;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

/**
 * Gives a record's message key from its content, for messages without an event id: a business key such as
 * {@code orderId:eventType}, the same on every redelivery and for every duplicate the producer sent. Named by
 * {@link IdempotentListener#key()}. Must be thread-safe.
 */
@FunctionalInterface
public interface MessageKeyExtractor {

    /** The key, or {@code null} if the record has none: it is then refused, never handled unprotected. */
    @Nullable String keyOf(ConsumerRecord<?, ?> record);
}
