CREATE TABLE orders (
    id         BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    owner      VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    order_no   VARCHAR(32)  CHARACTER SET ascii NOT NULL,
    sku_id     BIGINT       NOT NULL,
    quantity   INT          NOT NULL,
    status     VARCHAR(16)  CHARACTER SET ascii NOT NULL,
    created_at DATETIME(6)  NOT NULL,
    CONSTRAINT orders_order_no_uk UNIQUE (order_no),
    CONSTRAINT orders_quantity_ck CHECK (quantity BETWEEN 1 AND 100),
    INDEX orders_owner_idx (owner, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
