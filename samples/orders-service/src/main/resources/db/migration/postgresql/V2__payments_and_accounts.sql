-- Orders get a price. Orders placed before this migration are priced as OrderService prices new ones:
-- 12.50 EUR a piece.
ALTER TABLE orders ADD COLUMN amount bigint;
ALTER TABLE orders ADD COLUMN currency char(3);
UPDATE orders SET amount = quantity * 1250, currency = 'EUR';
ALTER TABLE orders ALTER COLUMN amount SET NOT NULL;
ALTER TABLE orders ALTER COLUMN currency SET NOT NULL;
ALTER TABLE orders ADD CONSTRAINT orders_amount_ck CHECK (amount > 0);

-- One row per payment event that took effect on an order (a transition, or a decline recorded). The unique event
-- id still holds when the event's idempotency record has expired and the provider delivers it again.
CREATE TABLE payment_events (
    id          bigserial   PRIMARY KEY,
    event_id    varchar(64) NOT NULL,
    order_id    bigint      NOT NULL REFERENCES orders (id),
    event_type  varchar(32) NOT NULL,
    charge_id   varchar(64) NOT NULL,
    from_status varchar(16) NOT NULL,
    to_status   varchar(16) NOT NULL,
    amount      bigint      NOT NULL,
    currency    char(3)     NOT NULL,
    occurred_at timestamptz NOT NULL,
    received_at timestamptz NOT NULL,
    CONSTRAINT payment_events_event_id_uk UNIQUE (event_id)
);

CREATE INDEX payment_events_order_idx ON payment_events (order_id, id);

-- Written in the transaction that changes the order; a relay (not yet built) publishes and stamps published_at.
CREATE TABLE payment_outbox (
    id           bigserial   PRIMARY KEY,
    aggregate_id bigint      NOT NULL,
    event_type   varchar(64) NOT NULL,
    payload      jsonb       NOT NULL,
    created_at   timestamptz NOT NULL,
    published_at timestamptz
);

CREATE INDEX payment_outbox_unpublished_idx ON payment_outbox (id) WHERE published_at IS NULL;

-- Accounts of a tenant, debited under an optimistic version check. Seeded for the demo, never created by the API.
CREATE TABLE accounts (
    id       bigint       PRIMARY KEY,
    tenant   varchar(255) NOT NULL,
    currency char(3)      NOT NULL,
    balance  bigint       NOT NULL,
    version  bigint       NOT NULL,
    CONSTRAINT accounts_balance_ck CHECK (balance >= 0)
);

CREATE INDEX accounts_tenant_idx ON accounts (tenant, id);

INSERT INTO accounts (id, tenant, currency, balance, version) VALUES
    (1001, 'acme', 'EUR', 100000, 0),
    (1002, 'acme', 'EUR', 2500, 0),
    (2001, 'globex', 'USD', 50000, 0);
