-- Failure classes: a FAILED_RETRYABLE record counts its failed attempts and may run again only from
-- next_attempt_at (its backoff). Both columns are added without rewriting the table (PostgreSQL 11+ stores the
-- default), and the check is NOT VALID, so that adding it does not scan the table under its exclusive lock:
-- existing rows hold the default 0, and every new or changed row is checked.
ALTER TABLE onceonly_record
    ADD COLUMN failures        integer     NOT NULL DEFAULT 0,
    ADD COLUMN next_attempt_at timestamptz,
    ADD CONSTRAINT onceonly_record_failures_ck CHECK (failures >= 0) NOT VALID;
