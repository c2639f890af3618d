package dev.onceonly.spi;

import java.time.Instant;

/**
 * Rows of one OnceOnly table that are removed once due: records past their retention, audit rows past theirs,
 * published outbox rows. The background cleanup purges every {@code Purgeable} the same way, in small batches with
 * a pause between them, on every instance at once.
 */
public interface Purgeable {

    /** What the rows are, for logs and metrics: {@code records}, {@code audit}, {@code outbox}. */
    String name();

    /**
     * Removes up to {@code limit} rows due at {@code now}, in one short transaction that skips rows other
     * transactions lock (so cleanups on several instances share the work instead of waiting for each other).
     *
     * @return how many rows were removed; fewer than {@code limit} when nothing more is due
     */
    int purge(Instant now, int limit);
}
