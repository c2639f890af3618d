package dev.onceonly;

/**
 * How the engine runs the work relative to a database transaction.
 *
 * <p>More modes may follow (one that joins the transaction the caller already holds, for message consumers);
 * code that switches over this type should expect that.
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
    LEASED
}
