package dev.onceonly;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** One attempt at a scope in one {@linkplain IdempotencyMode mode}: claim it, then run the work or replay. */
interface Attempts {

    /**
     * Returns {@code null} while another attempt holds the scope.
     *
     * @param lockWait how long the claim may wait for another transaction's uncommitted claim; leased claims, which
     *     commit at once, never wait
     */
    <T, X extends Exception> @Nullable IdempotentResult<T> attempt(IdempotencyScope scope, Fingerprint fingerprint,
            OutcomeCodec<T> codec, IdempotentWork<T, X> work, Duration lockWait) throws X;
}
