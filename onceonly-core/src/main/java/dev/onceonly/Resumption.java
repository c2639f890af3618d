package dev.onceonly;

import java.time.Instant;
import java.util.Objects;

/** What {@link IdempotencyEngine#resume} leaves for the worker to do. */
public sealed interface Resumption {

    /** The record has its final outcome, or no longer exists: nothing more to do. */
    record Done() implements Resumption {
    }

    /**
     * The record needs another attempt no sooner than {@code at}: it failed retryably and backs off, or another
     * attempt holds its lease until then (if that attempt's owner died, the lease runs out at {@code at}).
     */
    record RetryAt(Instant at) implements Resumption {
        public RetryAt {
            Objects.requireNonNull(at, "at");
        }
    }
}
