-- Failure classes: a FAILED_RETRYABLE record counts its failed attempts and may run again only from
-- next_attempt_at (its backoff).
ALTER TABLE onceonly_record
    ADD COLUMN failures        INT         NOT NULL DEFAULT 0,
    ADD COLUMN next_attempt_at DATETIME(6) NULL,
    ADD CONSTRAINT onceonly_record_failures_ck CHECK (failures >= 0);
