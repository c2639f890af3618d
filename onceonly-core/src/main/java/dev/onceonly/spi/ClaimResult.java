package dev.onceonly.spi;

import java.util.Objects;

/** The answer of {@link IdempotencyStore#claim}: an expected outcome, never an exception. */
public sealed interface ClaimResult {

    /**
     * The caller now owns the record in state PROCESSING: it was new, expired, failed retryably, or its lease had
     * run out.
     *
     * @param token the fencing token to renew, complete or release the record with
     * @param failures how many earlier attempts at the record failed retryably (0 for a new record)
     */
    record Claimed(LeaseToken token, int failures) implements ClaimResult {
        public Claimed {
            Objects.requireNonNull(token, "token");
            if (failures < 0) {
                throw new IllegalArgumentException("failures must not be negative, but is " + failures);
            }
        }
    }

    /**
     * A record exists that this request may not claim: finished, still leased, or created by another request.
     *
     * @param record the record as stored
     */
    record Duplicate(IdempotencyRecord record) implements ClaimResult {
        public Duplicate {
            Objects.requireNonNull(record, "record");
        }
    }

    /**
     * Another transaction has claimed the scope and not committed yet, and it did not finish within the
     * request's {@link ClaimRequest#lockWait() lock wait}: the scope is in progress elsewhere. Only stores with
     * transactions answer this, in either mode: a leased-mode claim, too, can meet a claim not yet committed.
     */
    record Locked() implements ClaimResult {
    }
}
