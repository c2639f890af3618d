package dev.onceonly;

import dev.onceonly.internal.PartsDigest;
import dev.onceonly.spi.LeaseToken;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * The attempt that runs the work, handed to it by the engine: which record and attempt it is, the key to pass
 * to the systems the work calls, and whether the attempt still owns its record.
 *
 * <p>Work that calls another system passes {@link #downstreamKey(String)} on as that system's idempotency key, so
 * that an attempt taking over a crashed or stalled one repeats the call under the same key and the other system
 * deduplicates it. Long work checks {@link #isLeaseLost()} (or calls {@link #ensureLeaseHeld()}) between steps,
 * to stop early once a later attempt has taken the record over; its outcome would be refused anyway.
 *
 * <p>Thread-safe; valid while the work runs.
 */
public final class Attempt {

    private static final HexFormat HEX = HexFormat.of();
    /** Bytes of the digest a downstream key keeps: 128 bits, as many as a random UUID has. */
    private static final int DOWNSTREAM_KEY_BYTES = 16;

    private final IdempotencyScope scope;
    private final LeaseToken token;
    private final int failures;
    private final BooleanSupplier leaseLost;
    private final boolean transactional;

    /** An attempt of leased mode, whose lease {@code leaseLost} says is gone. */
    Attempt(IdempotencyScope scope, LeaseToken token, int failures, BooleanSupplier leaseLost) {
        this(scope, token, failures, leaseLost, false);
    }

    /** An attempt that runs inside a transaction, holding its record's row until it ends. */
    static Attempt inTransaction(IdempotencyScope scope, LeaseToken token, int failures) {
        return new Attempt(scope, token, failures, () -> false, true);
    }

    private Attempt(IdempotencyScope scope, LeaseToken token, int failures, BooleanSupplier leaseLost,
            boolean transactional) {
        this.scope = Objects.requireNonNull(scope, "scope");
        this.token = Objects.requireNonNull(token, "token");
        this.failures = failures;
        this.leaseLost = Objects.requireNonNull(leaseLost, "leaseLost");
        this.transactional = transactional;
    }

    /** Owner, operation and key, the key as the engine stores it (its digest, if only digests are kept). */
    public IdempotencyScope scope() {
        return scope;
    }

    /** The attempt number: 1 for the first run, one more for each retry or take-over. */
    public int number() {
        return token.attempt();
    }

    /** The fencing token the engine stores this attempt's outcome with. */
    public LeaseToken token() {
        return token;
    }

    /** How many earlier attempts at this record failed retryably. */
    public int failures() {
        return failures;
    }

    /**
     * A key for {@code step}'s call to another system, the same in every attempt at this record and different for
     * every other record, step, owner and operation: 32 lowercase hexadecimal characters (a SHA-256 digest of the
     * scope, the record's creation time and the step, cut to 128 bits). A record created anew for the same key
     * after its predecessor expired gets new downstream keys, so that its calls are not mistaken for the old ones.
     *
     * @param step names the call within the work, such as {@code charge} or {@code ship}
     */
    public String downstreamKey(String step) {
        Objects.requireNonNull(step, "step");
        long createdMicros = ChronoUnit.MICROS.between(Instant.EPOCH, token.createdAt());
        byte[] digest = PartsDigest.sha256(scope.owner(), scope.operation(), scope.key().value(),
                Long.toString(createdMicros), step);
        return HEX.formatHex(digest, 0, DOWNSTREAM_KEY_BYTES);
    }

    /**
     * Whether this attempt may no longer own its record: a renewal found it taken over, or its lease ran out
     * without a renewal getting through. Always {@code false} in transactional mode, where the record cannot be
     * taken over while the transaction runs.
     */
    public boolean isLeaseLost() {
        return leaseLost.getAsBoolean();
    }

    /**
     * Whether this attempt runs in a transaction that also holds what the work writes through it on the thread it
     * was called on (transactional and joined modes), so that a failure undoes the work's writes with the claim.
     * What the work hands to another thread or process is outside it: it may take effect whatever happens here.
     */
    public boolean isTransactional() {
        return transactional;
    }

    /**
     * @throws LeaseLostException if {@link #isLeaseLost()}; the engine then stores nothing for this attempt and
     *     answers with what the attempt that took over stores
     */
    public void ensureLeaseHeld() {
        if (isLeaseLost()) {
            throw LeaseLostException.of(scope, token.attempt());
        }
    }

    @Override
    public String toString() {
        return "Attempt[operation=" + scope.operation() + ", number=" + token.attempt() + "]";
    }
}
