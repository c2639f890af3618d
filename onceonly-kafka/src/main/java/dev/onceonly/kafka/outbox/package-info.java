/**
 * Publishing an outbox table to Kafka: {@link dev.onceonly.kafka.outbox.OutboxRelay} sends the rows a business
 * transaction wrote, at least once and in order per aggregate, from every instance at once.
 *
 * <p><b>Why not a library.</b> Spring Modulith's event publication registry keeps its own {@code event_publication}
 * table of serialized application events and resubmits incomplete publications without any order, so it can neither
 * read our existing outbox table nor keep an aggregate's events in order. gruelbox transaction-outbox stores
 * serialized method invocations in its own table, and its ordered mode orders per "topic" through its own sequence
 * table. namastack-outbox keeps per-key order, but in its own record and partition tables, with its own handler API
 * in place of our deterministic event ids. All three would need a second table and a copy of every event; the
 * relay here is one query per dialect over the table we already write, so none of them is used.
 */
@NullMarked
package dev.onceonly.kafka.outbox;

import org.jspecify.annotations.NullMarked;
