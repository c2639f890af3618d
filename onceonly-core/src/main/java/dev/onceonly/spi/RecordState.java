package dev.onceonly.spi;

/**
 * The states of an idempotency record.
 *
 * <pre>
 * PROCESSING ──▶ SUCCEEDED | FAILED_FINAL | FAILED_RETRYABLE
 * FAILED_RETRYABLE ──▶ PROCESSING (attempt + 1)
 * PROCESSING, lease expired ──▶ PROCESSING (attempt + 1, takeover)
 * </pre>
 */
public enum RecordState {
    /** Claimed by an attempt that holds a lease and has not finished. */
    PROCESSING,
    /** Finished; its response is replayed to every duplicate. */
    SUCCEEDED,
    /** Finished with a deterministic rejection; replayed like a success, so a retry cannot turn it around. */
    FAILED_FINAL,
    /** Failed transiently; the next request with the same key and fingerprint runs again. */
    FAILED_RETRYABLE;

    /** Whether the record holds a response that duplicates get replayed. */
    public boolean isTerminal() {
        return this == SUCCEEDED || this == FAILED_FINAL;
    }
}
