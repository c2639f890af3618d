package dev.onceonly.kafka.outbox;

/** One unpublished outbox row as the relay sends it; {@code payload} is JSON text. */
record OutboxRow(long id, String aggregateId, String eventType, String eventId, String payload) {
}
