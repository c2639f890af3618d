-- Every outbox event carries an id derived from the idempotency scope that produced it (Attempt.downstreamKey), so a
-- republished event is deduplicated by every consumer's inbox. Rows written before this migration get an id of their
-- own. The relay finds the oldest unpublished rows by id (payment_outbox_unpublished_idx, from V2) and checks each
-- for an earlier unpublished row of its aggregate (this index).
ALTER TABLE payment_outbox ADD COLUMN event_id varchar(64);
UPDATE payment_outbox SET event_id = 'outbox-' || id WHERE event_id IS NULL;
ALTER TABLE payment_outbox ALTER COLUMN event_id SET NOT NULL;
CREATE INDEX payment_outbox_aggregate_unpublished_idx ON payment_outbox (aggregate_id, id)
    WHERE published_at IS NULL;

-- What the order-events consumer did with each event it took from Kafka: deliberately not unique, so that only the
-- consumer's inbox keeps a redelivered event from being recorded twice.
CREATE TABLE order_notifications (
    id          bigserial   PRIMARY KEY,
    order_id    bigint      NOT NULL,
    event_type  varchar(64) NOT NULL,
    event_id    varchar(64) NOT NULL,
    recorded_at timestamptz NOT NULL
);

CREATE INDEX order_notifications_order_idx ON order_notifications (order_id, id);
