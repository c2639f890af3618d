-- OnceOnly idempotency records, MariaDB 10.6+ (InnoDB).
-- Applied by JdbcSchema.migrate (Flyway, history table onceonly_schema_history); teams that manage their
-- schema themselves can run this file as it is.
--
-- The natural key (owner, operation, idem_key) is the primary key and decides every race. Its columns use a
-- binary collation: keys are case-sensitive, and a case-insensitive collation would let "abc" and "ABC" share
-- one record. 3 x 255 utf8mb4 characters make a 3,060-byte key, within InnoDB's 3,072-byte limit (DYNAMIC
-- rows). Times are UTC in DATETIME(6): no time-zone conversion, no 2038 limit. The primary key has no name of
-- its own: InnoDB calls every primary key PRIMARY and warns about any other name.
CREATE TABLE onceonly_record (
    owner            VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    operation        VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    idem_key         VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    fingerprint      BINARY(32)   NOT NULL,
    state            VARCHAR(16)  CHARACTER SET ascii NOT NULL,
    attempt          INT          NOT NULL,
    lease_expires_at DATETIME(6)  NULL,
    http_status      SMALLINT     NULL,
    response_headers MEDIUMTEXT   CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
    response_body    LONGBLOB     NULL,
    resource_id      VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
    created_at       DATETIME(6)  NOT NULL,
    updated_at       DATETIME(6)  NOT NULL,
    expires_at       DATETIME(6)  NOT NULL,
    PRIMARY KEY (owner, operation, idem_key),
    CONSTRAINT onceonly_record_state_ck
        CHECK (state IN ('PROCESSING', 'SUCCEEDED', 'FAILED_FINAL', 'FAILED_RETRYABLE')),
    CONSTRAINT onceonly_record_attempt_ck CHECK (attempt > 0),
    INDEX onceonly_record_expires_at_idx (expires_at)
) ENGINE = InnoDB ROW_FORMAT = DYNAMIC DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
