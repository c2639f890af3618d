-- Orders get a price. Orders placed before this migration are priced as OrderService prices new ones:
-- 12.50 EUR a piece.
ALTER TABLE orders
    ADD COLUMN amount   BIGINT NULL,
    ADD COLUMN currency CHAR(3) CHARACTER SET ascii NULL;
UPDATE orders SET amount = quantity * 1250, currency = 'EUR';
ALTER TABLE orders
    MODIFY amount   BIGINT NOT NULL,
    MODIFY currency CHAR(3) CHARACTER SET ascii NOT NULL,
    ADD CONSTRAINT orders_amount_ck CHECK (amount > 0);

-- One row per payment event that took effect on an order (a transition, or a decline recorded). The unique event
-- id still holds when the event's idempotency record has expired and the provider delivers it again.
CREATE TABLE payment_events (
    id          BIGINT      NOT NULL AUTO_INCREMENT PRIMARY KEY,
    event_id    VARCHAR(64) CHARACTER SET ascii NOT NULL,
    order_id    BIGINT      NOT NULL,
    event_type  VARCHAR(32) CHARACTER SET ascii NOT NULL,
    charge_id   VARCHAR(64) CHARACTER SET ascii NOT NULL,
    from_status VARCHAR(16) CHARACTER SET ascii NOT NULL,
    to_status   VARCHAR(16) CHARACTER SET ascii NOT NULL,
    amount      BIGINT      NOT NULL,
    currency    CHAR(3)     CHARACTER SET ascii NOT NULL,
    occurred_at DATETIME(6) NOT NULL,
    received_at DATETIME(6) NOT NULL,
    CONSTRAINT payment_events_event_id_uk UNIQUE (event_id),
    CONSTRAINT payment_events_order_fk FOREIGN KEY (order_id) REFERENCES orders (id),
    INDEX payment_events_order_idx (order_id, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Written in the transaction that changes the order; a relay (not yet built) publishes and stamps published_at.
CREATE TABLE payment_outbox (
    id           BIGINT      NOT NULL AUTO_INCREMENT PRIMARY KEY,
    aggregate_id BIGINT      NOT NULL,
    event_type   VARCHAR(64) CHARACTER SET ascii NOT NULL,
    payload      JSON        NOT NULL,
    created_at   DATETIME(6) NOT NULL,
    published_at DATETIME(6) NULL,
    INDEX payment_outbox_unpublished_idx (published_at, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Accounts of a tenant, debited under an optimistic version check. Seeded for the demo, never created by the API.
CREATE TABLE accounts (
    id       BIGINT       NOT NULL PRIMARY KEY,
    tenant   VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    currency CHAR(3)      CHARACTER SET ascii NOT NULL,
    balance  BIGINT       NOT NULL,
    version  BIGINT       NOT NULL,
    CONSTRAINT accounts_balance_ck CHECK (balance >= 0),
    INDEX accounts_tenant_idx (tenant, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

INSERT INTO accounts (id, tenant, currency, balance, version) VALUES
    (1001, 'acme', 'EUR', 100000, 0),
    (1002, 'acme', 'EUR', 2500, 0),
    (2001, 'globex', 'USD', 50000, 0);
