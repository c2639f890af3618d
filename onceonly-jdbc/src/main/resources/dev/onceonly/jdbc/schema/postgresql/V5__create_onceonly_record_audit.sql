-- Audit mode (JdbcIdempotencyStore.keepingAudit, onceonly.retention.audit): when a record expires, the cleanup
-- moves its audit fields here and drops its stored response (headers and body), keeping this row for a second,
-- longer retention. A key may be used again after its record expired, so its creation time is part of the key.
-- Empty, and never read by requests, unless audit mode is on. A record table of another name has its audit table
-- under that name with _audit appended.
CREATE TABLE onceonly_record_audit (
    owner            varchar(255) NOT NULL,
    operation        varchar(255) NOT NULL,
    idem_key         varchar(255) NOT NULL,
    created_at       timestamptz  NOT NULL,
    fingerprint      bytea        NOT NULL,
    state            varchar(16)  NOT NULL,
    attempt          integer      NOT NULL,
    failures         integer      NOT NULL,
    http_status      smallint,
    resource_id      varchar(255),
    updated_at       timestamptz  NOT NULL,
    expired_at       timestamptz  NOT NULL,
    audit_expires_at timestamptz  NOT NULL,
    CONSTRAINT onceonly_record_audit_pk PRIMARY KEY (owner, operation, idem_key, created_at)
);

CREATE INDEX onceonly_record_audit_expires_at_idx ON onceonly_record_audit (audit_expires_at);
