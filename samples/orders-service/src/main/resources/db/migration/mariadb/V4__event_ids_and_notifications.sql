-- Every outbox event carries an id derived from the idempotency scope that produced it (Attempt.downstreamKey), so a
-- republished event is deduplicated by every consumer's inbox. Rows written before this migration get an id of their
-- own. The relay finds the oldest unpublished rows by (published_at, id) (from V2) and checks each for an earlier
-- unpublished row of its aggregate (this index).
ALTER TABLE payment_outbox ADD COLUMN event_id VARCHAR(64) CHARACTER SET ascii NULL;
UPDATE payment_outbox SET event_id = CONCAT('outbox-', id) WHERE event_id IS NULL;
ALTER TABLE payment_outbox MODIFY event_id VARCHAR(64) CHARACTER SET ascii NOT NULL;
ALTER TABLE payment_outbox ADD INDEX payment_outbox_aggregate_idx (aggregate_id, published_at, id);

-- What the order-events consumer did with each event it took from Kafka: deliberately not unique, so that only the
-- consumer's inbox keeps a redelivered event from being recorded twice.
CREATE TABLE order_notifications (
    id          BIGINT      NOT NULL AUTO_INCREMENT PRIMARY KEY,
    order_id    BIGINT      NOT NULL,
    event_type  VARCHAR(64) CHARACTER SET ascii NOT NULL,
    event_id    VARCHAR(64) CHARACTER SET ascii NOT NULL,
    recorded_at DATETIME(6) NOT NULL,
    INDEX order_notifications_order_idx (order_id, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
