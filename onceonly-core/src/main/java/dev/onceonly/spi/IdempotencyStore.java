package dev.onceonly.spi;

import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotencyStoreException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Durable storage of idempotency records: what a store author implements.
 *
 * <p>Each method is atomic on its own and safe to call from many threads and many processes at once; the
 * store's uniqueness guarantee on the {@link IdempotencyScope} decides every race. Expected outcomes are return
 * values; {@link IdempotencyStoreException} means only that the store is broken or unreachable. Time is always
 * an argument, read by the caller from its {@link java.time.Clock}: a store never reads a clock of its own.
 *
 * <p>A store that can join the caller's transaction (the JDBC store) makes every write part of it, so that a
 * claim, the business write and the completion commit or roll back together.
 *
 * <p>Every implementation passes the contract suite in {@code onceonly-store-tck}.
 */
public interface IdempotencyStore {

    /**
     * Claims the scope for a new attempt, atomically:
     * <ul>
     *   <li>no record, or an {@linkplain IdempotencyRecord#isExpired expired} one: insert PROCESSING with attempt 1
     *       (an expired record is replaced, keeping the attempt count rising) → {@link ClaimResult.Claimed};</li>
     *   <li>a record of the same fingerprint that is FAILED_RETRYABLE past its {@code nextAttemptAt}, or
     *       PROCESSING with an expired lease: take it over as PROCESSING with attempt + 1, keeping its failure
     *       count → {@link ClaimResult.Claimed}; the take-over must re-check, atomically, that the lease it
     *       takes over is still expired, so that of a {@link #renew} and a take-over racing exactly one wins;</li>
     *   <li>any other record → {@link ClaimResult.Duplicate} with the record as stored;</li>
     *   <li>a claim held by another uncommitted transaction for longer than the lock wait →
     *       {@link ClaimResult.Locked}.</li>
     * </ul>
     * The rule is {@link ClaimRequest#mayClaim}: {@link IdempotencyRecord#isClaimableBy}, and no take-over of a live
     * record for a request that may not take over. Of any number of concurrent claims on one scope, at
     * most one is {@code Claimed} per attempt number.
     *
     * @throws IdempotencyStoreException if the store cannot be reached
     */
    ClaimResult claim(ClaimRequest request, Instant now);

    /**
     * Reads the record of a scope as stored, expired or not.
     *
     * @throws IdempotencyStoreException if the store cannot be reached
     */
    Optional<IdempotencyRecord> find(IdempotencyScope scope);

    /**
     * Extends the lease of the running attempt {@code token} to {@code leaseExpiresAt} (its heartbeat). Fenced like
     * {@link #complete}: succeeds only while the record is PROCESSING with this attempt, even if the lease ran out
     * in the meantime, as long as no one took it over.
     *
     * @return {@code true} if renewed; {@code false} if the attempt lost the record and nothing was written
     * @throws IdempotencyStoreException if the store cannot be reached
     */
    boolean renew(IdempotencyScope scope, LeaseToken token, Instant leaseExpiresAt, Instant now);

    /**
     * Stores how the attempt {@code token} finished: the record becomes SUCCEEDED or FAILED_FINAL with the
     * response. Succeeds only while the record is PROCESSING with this attempt, even if the lease ran out in the
     * meantime, as long as no one took it over.
     *
     * @return {@code true} if stored; {@code false} if the attempt lost the record and nothing was written
     * @throws IdempotencyStoreException if the store cannot be reached
     */
    boolean complete(IdempotencyScope scope, LeaseToken token, Completion completion, Instant now);

    /**
     * Marks the attempt {@code token} FAILED_RETRYABLE with one failure more, so that a request with the same key
     * may run again from {@link Release#nextAttemptAt()}. Same fencing as {@link #complete}.
     *
     * @return {@code true} if released; {@code false} if the attempt had lost the record
     * @throws IdempotencyStoreException if the store cannot be reached
     */
    boolean release(IdempotencyScope scope, LeaseToken token, Release release, Instant now);

    /**
     * Whether this store can {@linkplain #insertFinished store a finished outcome in one write}; default
     * {@code false}, and the engine then always claims first.
     */
    default boolean insertsFinished() {
        return false;
    }

    /**
     * Stores the finished outcome of a transactional attempt that ran without a claim, in one write in the
     * caller's transaction, decided by the unique scope like a claim: for an attempt whose duplicates a shared
     * cache's marker kept away (see {@link OutcomeCache}), so that its first execution costs one record write
     * instead of a claim and a completion. The record starts at attempt 1, created at {@code now}, in the
     * completion's state, expiring at the completion's {@code expiresAt}; it never replaces a record, expired or
     * not.
     *
     * <p>A store may instead hold the write back and send it with the transaction's commit, in one round trip: it
     * then answers {@link Insertion#INSERTED} at once, and should the write meet a record or wait too long, the
     * commit (or a call of the store that sends it before the commit) fails with {@link InsertionRefusedException},
     * and the transaction commits nothing, the work's writes neither.
     *
     * @return {@link Insertion#INSERTED}; {@link Insertion#EXISTS} if the scope has a record (also one another
     *     transaction committed while this one waited for it); {@link Insertion#LOCKED} if another transaction's
     *     uncommitted record held it longer than the request's lock wait. Either of the last two leaves nothing
     *     written: the caller rolls back and claims as usual.
     * @throws IdempotencyStoreException if the store cannot be reached
     * @throws UnsupportedOperationException unless {@link #insertsFinished()}
     */
    default Insertion insertFinished(ClaimRequest request, Completion completion, Instant now) {
        throw new UnsupportedOperationException(getClass().getName() + " does not store finished outcomes in one "
                + "write; the engine claims first with it");
    }

    /** What {@link #insertFinished} did. */
    enum Insertion {
        INSERTED,
        EXISTS,
        LOCKED
    }

    /**
     * Deletes up to {@code limit} records whose {@code expiresAt} is at or before {@code now}, in one short
     * transaction that skips rows other transactions hold. Call it repeatedly to purge more.
     *
     * @return the number of records deleted
     * @throws IdempotencyStoreException if the store cannot be reached
     */
    int purgeExpired(Instant now, int limit);

    /**
     * Deletes the record of a scope whatever its state, for an administrator: its key then counts as new (a store
     * that {@linkplain #keepsAudit keeps audit} fields keeps this record's too). A running attempt of an evicted
     * record can no longer store its outcome (its {@link #complete} finds no record).
     *
     * @param now when, from which audit fields kept are counted
     * @return whether there was a record
     * @throws IdempotencyStoreException if the store cannot be reached
     * @throws UnsupportedOperationException if this store does not support administration
     */
    default boolean evict(IdempotencyScope scope, Instant now) {
        throw unsupported("evict records");
    }

    /**
     * Whether records that expire leave their audit fields behind (the JDBC store's audit mode) instead of being
     * deleted whole; {@code false} by default.
     */
    default boolean keepsAudit() {
        return false;
    }

    /**
     * Up to {@code limit} records of one owner and operation, the most recently created first, expired or not,
     * for an administrator, their responses as stored. A store may read every record of the owner and operation to sort them.
     *
     * @throws IdempotencyStoreException if the store cannot be reached
     * @throws UnsupportedOperationException if this store does not support administration
     */
    default List<IdempotencyRecord> recent(String owner, String operation, int limit) {
        throw unsupported("list records");
    }

    /**
     * Counts the records by state, with the oldest PROCESSING one and those past their expiry or lease, as of
     * {@code now}: for metrics, in one pass over every record (a full read of the table; call it seldom).
     *
     * @throws IdempotencyStoreException if the store cannot be reached
     * @throws UnsupportedOperationException if this store cannot count its records
     */
    default RecordStatistics statistics(Instant now) {
        throw unsupported("count records");
    }

    private UnsupportedOperationException unsupported(String what) {
        return new UnsupportedOperationException(getClass().getName() + " cannot " + what);
    }
}
