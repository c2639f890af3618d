package dev.onceonly;

/**
 * The business operation the engine runs at most once per scope.
 *
 * @param <T> the result type
 * @param <X> the checked exception the work may throw ({@link RuntimeException} for none)
 */
@FunctionalInterface
public interface IdempotentWork<T, X extends Exception> {

    /**
     * @param attempt which attempt this is, the key to pass to systems the work calls, and whether the attempt
     *     still owns its record
     */
    T run(Attempt attempt) throws X;
}
