CREATE TABLE orders (
    id         bigserial    PRIMARY KEY,
    owner      varchar(255) NOT NULL,
    order_no   varchar(32)  NOT NULL,
    sku_id     bigint       NOT NULL,
    quantity   integer      NOT NULL,
    status     varchar(16)  NOT NULL,
    created_at timestamptz  NOT NULL,
    CONSTRAINT orders_order_no_uk UNIQUE (order_no),
    CONSTRAINT orders_quantity_ck CHECK (quantity BETWEEN 1 AND 100)
);

CREATE INDEX orders_owner_idx ON orders (owner, id);
