-- OnceOnly idempotency records, PostgreSQL 12+.
-- Applied by JdbcSchema.migrate (Flyway, history table onceonly_schema_history); teams that manage their
-- schema themselves can run this file as it is.
--
-- The natural key (owner, operation, idem_key) is the primary key: it is the unique constraint that decides
-- every race, and a surrogate id would only add an index and burn sequence values on conflicts. The owner
-- leads it, so the table can be distributed by owner with the business tables.
CREATE TABLE onceonly_record (
    owner            varchar(255) NOT NULL,
    operation        varchar(255) NOT NULL,
    idem_key         varchar(255) NOT NULL,
    fingerprint      bytea        NOT NULL,
    state            varchar(16)  NOT NULL,
    attempt          integer      NOT NULL,
    lease_expires_at timestamptz,
    http_status      smallint,
    response_headers text,
    response_body    bytea,
    resource_id      varchar(255),
    created_at       timestamptz  NOT NULL,
    updated_at       timestamptz  NOT NULL,
    expires_at       timestamptz  NOT NULL,
    CONSTRAINT onceonly_record_pk PRIMARY KEY (owner, operation, idem_key),
    CONSTRAINT onceonly_record_state_ck
        CHECK (state IN ('PROCESSING', 'SUCCEEDED', 'FAILED_FINAL', 'FAILED_RETRYABLE')),
    CONSTRAINT onceonly_record_attempt_ck CHECK (attempt > 0)
);

CREATE INDEX onceonly_record_expires_at_idx ON onceonly_record (expires_at);
