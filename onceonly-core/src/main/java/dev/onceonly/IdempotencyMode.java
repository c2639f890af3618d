package dev.onceonly;

/**
 * How the engine runs the work relative to a database transaction. Code that switches over this type should
 * expect more modes to follow.
 */
public enum IdempotencyMode {

    /** Transactional when a {@link TransactionRunner} is set, else leased: the builder's default. */
    AUTO,

    /**
     * Claim, work and stored outcome in one transaction begun by the engine's {@link TransactionRunner}: they
     * commit or roll back together. For short requests against one database.
     */
    TRANSACTIONAL,

    /**
     * No transaction around the work: the claim commits at once with a lease and a fencing token, the outcome is
     * stored only if the attempt still owns the record. For work that calls other systems.
     */
    LEASED,

    /**
     * Claim, work and stored outcome join the transaction the caller already holds (a listener container's, a
     * service method's {@code @Transactional}), and commit or roll back with it; the engine refuses to run without
     * one. A duplicate of a committed outcome is replayed, as everywhere; a claim held by a transaction that has
     * not committed yet is waited for in the database, for at most the wait, and then refused as in progress (the
     * caller's transaction can then only roll back, and the message comes again). An exception of the work, or a
     * retryable result, marks the caller's transaction rollback-only: the claim and the work's writes never commit
     * without its outcome, even if the caller catches the exception.
     * For message consumers (the inbox) and work that must be part of its caller's transaction.
     */
    JOINED
}
