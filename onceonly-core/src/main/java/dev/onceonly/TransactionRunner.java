package dev.onceonly;

import java.util.function.Supplier;

/**
 * Runs work in one database transaction, for the engine's transactional mode: it commits when the work
 * returns, and rolls back and rethrows when the work throws any {@link RuntimeException} or {@link Error}. For
 * {@linkplain IdempotencyMode#JOINED joined mode} it also tells whether the caller already runs a transaction, and
 * runs callbacks when that transaction ends: outcomes reach caches only once they are durable.
 *
 * <p>The store and the business code must use the same transaction, e.g. Spring's {@code TransactionTemplate}
 * together with a store that joins Spring-managed transactions (see {@code onceonly-jdbc}).
 */
public interface TransactionRunner {

    <T> T inTransaction(Supplier<T> work);

    /**
     * Runs work in a transaction of its own, which commits when the work returns, also while a transaction of the
     * calling thread is active or ending (from an {@link #afterCompletion} callback): for what joined mode must
     * store apart from the caller's transaction, which rolled back. Runners that cannot throw
     * {@link UnsupportedOperationException}.
     */
    default <T> T inNewTransaction(Supplier<T> work) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot run a transaction of its own");
    }

    /**
     * Whether the calling thread runs in a transaction that the store joins: the one joined mode works in.
     * Runners that cannot tell answer {@code false}, and joined mode then refuses to run.
     */
    default boolean isTransactionActive() {
        return false;
    }

    /**
     * Runs {@code callback} once the transaction active on the calling thread has ended, with whether it
     * committed; a callback that throws is logged and ignored, as the transaction's outcome stands.
     *
     * @throws IllegalStateException if no transaction is {@linkplain #isTransactionActive() active}
     */
    default void afterCompletion(CompletionCallback callback) {
        throw new IllegalStateException(getClass().getName() + " cannot run callbacks after a transaction");
    }

    /**
     * Marks the transaction active on the calling thread rollback-only, so that no caller can commit it: joined
     * mode does so when the work failed or its result is retryable, as a caller that catches the exception and
     * commits would store a half-done attempt. Runners that cannot answer {@code false}.
     *
     * @return whether the transaction is now rollback-only
     */
    default boolean markRollbackOnly() {
        return false;
    }

    /** What runs when a joined transaction ends. */
    @FunctionalInterface
    interface CompletionCallback {

        /** @param committed {@code true} after a commit, {@code false} after a rollback or an unknown outcome */
        void completed(boolean committed);
    }
}
