package dev.onceonly;

import java.util.function.Supplier;

/**
 * Runs work in one database transaction, for the engine's transactional mode: it commits when the work
 * returns, and rolls back and rethrows when the work throws any {@link RuntimeException} or {@link Error}.
 *
 * <p>The store and the business code must use the same transaction, e.g. Spring's {@code TransactionTemplate}
 * together with a store that joins Spring-managed transactions (see {@code onceonly-jdbc}).
 */
public interface TransactionRunner {

    <T> T inTransaction(Supplier<T> work);
}
