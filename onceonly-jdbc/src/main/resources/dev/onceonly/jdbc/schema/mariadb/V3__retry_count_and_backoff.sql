-- Failure classes: a FAILED_RETRYABLE record counts its failed attempts and may run again only from
-- next_attempt_at (its backoff). Columns only, so that MariaDB adds them in place (ALGORITHM=INSTANT) instead of
-- copying the table, as a CHECK constraint in the same statement would make it.
ALTER TABLE onceonly_record
    ADD COLUMN failures        INT         NOT NULL DEFAULT 0,
    ADD COLUMN next_attempt_at DATETIME(6) NULL;
