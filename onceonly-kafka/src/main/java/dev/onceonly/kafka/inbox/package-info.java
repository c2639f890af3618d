/**
 * Idempotent Kafka consumers: {@link dev.onceonly.kafka.inbox.IdempotentListener} on a {@code @KafkaListener}
 * method, run through the broker-neutral {@link dev.onceonly.inbox.Inbox} in the listener's transaction.
 */
@NullMarked
package dev.onceonly.kafka.inbox;

import org.jspecify.annotations.NullMarked;
