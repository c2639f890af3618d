-- Audit mode (JdbcIdempotencyStore.keepingAudit, onceonly.retention.audit): when a record expires, the cleanup
-- moves its audit fields here and drops its stored response (headers and body), keeping this row for a second,
-- longer retention. A key may be used again after its record expired, so its creation time is part of the key
-- (3,060 + 8 bytes, within InnoDB's 3,072). Empty, and never read by requests, unless audit mode is on. A record
-- table of another name has its audit table under that name with _audit appended.
CREATE TABLE onceonly_record_audit (
    owner            VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    operation        VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    idem_key         VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    created_at       DATETIME(6)  NOT NULL,
    fingerprint      BINARY(32)   NOT NULL,
    state            VARCHAR(16)  CHARACTER SET ascii NOT NULL,
    attempt          INT          NOT NULL,
    failures         INT          NOT NULL,
    http_status      SMALLINT     NULL,
    resource_id      VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL,
    updated_at       DATETIME(6)  NOT NULL,
    expired_at       DATETIME(6)  NOT NULL,
    audit_expires_at DATETIME(6)  NOT NULL,
    PRIMARY KEY (owner, operation, idem_key, created_at),
    INDEX onceonly_record_audit_expires_at_idx (audit_expires_at)
) ENGINE = InnoDB ROW_FORMAT = DYNAMIC DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;
