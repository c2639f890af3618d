package dev.onceonly;

import dev.onceonly.spi.IdempotencyRecord;
import java.util.Objects;

/**
 * What {@link IdempotencyEngine#submit} answers: the operation is accepted (queued, running, or waiting to be
 * retried), or it has finished and its stored outcome is replayed.
 *
 * @param <T> the result type of the operation
 */
public sealed interface Submission<T> {

    /**
     * The operation runs, or will, in a worker.
     *
     * @param record the record as it stands; its scope holds the key as stored, which a status resource reads
     *     with {@link IdempotencyEngine#findStored}
     * @param created {@code true} if this submission created (or re-queued) it, {@code false} for a duplicate of
     *     a submission still under way
     */
    record Accepted<T>(IdempotencyRecord record, boolean created) implements Submission<T> {
        public Accepted {
            Objects.requireNonNull(record, "record");
        }
    }

    /**
     * The operation has finished; every duplicate gets its stored outcome.
     *
     * @param result the stored outcome, decoded, with {@code replayed} set
     */
    record Finished<T>(IdempotentResult<T> result) implements Submission<T> {
        public Finished {
            Objects.requireNonNull(result, "result");
        }
    }
}
