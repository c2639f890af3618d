-- Failure classes: a FAILED_RETRYABLE record counts its failed attempts and may run again only from
-- next_attempt_at (its backoff). Both are added without rewriting the table (PostgreSQL 11+ stores the default).
ALTER TABLE onceonly_record
    ADD COLUMN failures        integer     NOT NULL DEFAULT 0,
    ADD COLUMN next_attempt_at timestamptz,
    ADD CONSTRAINT onceonly_record_failures_ck CHECK (failures >= 0);
