-- Every outbox event carries an id derived from the idempotency scope that produced it (Attempt.downstreamKey), so a
-- republished event is deduplicated by every consumer's inbox. Rows written before this migration get an id of their
-- own. The relay reads the unpublished rows of an aggregate in id order.
ALTER TABLE payment_outbox ADD COLUMN event_id varchar(64);
UPDATE payment_outbox SET event_id = 'outbox-' || id WHERE event_id IS NULL;
ALTER TABLE payment_outbox ALTER COLUMN event_id SET NOT NULL;
DROP INDEX payment_outbox_unpublished_idx;
CREATE INDEX payment_outbox_unpublished_idx ON payment_outbox (aggregate_id, id) WHERE published_at IS NULL;

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
