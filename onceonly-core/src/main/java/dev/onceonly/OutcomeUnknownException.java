package dev.onceonly;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Thrown by work that may already have taken effect but has no result to give, such as an HTTP handler that went
 * on asynchronously: running it again could repeat its effect.
 *
 * <p>The engine never releases the key for it. It stores {@link #outcome()} as the scope's final outcome
 * (FAILED_FINAL, whatever the {@link OutcomePolicy} says, as given and not through the {@link OutcomeCodec}); in
 * transactional mode that commits with what the work wrote. Then it rethrows this exception to its caller, which
 * answers with the outcome; every retry gets it replayed, so the work never runs twice in its scope. If the
 * outcome cannot be stored (the store fails, or the transaction cannot commit), this exception is still what the
 * caller gets, never a "nothing ran" store error, because the work may go on. Work whose writes a rollback undoes
 * says so with {@link #unlessRolledBack}, and is answered by the mode.
 */
public final class OutcomeUnknownException extends IdempotencyException {

    private final transient StoredResponse outcome;
    private final @Nullable IdempotencyException unlessRolledBack;

    private OutcomeUnknownException(String message, StoredResponse outcome,
            @Nullable IdempotencyException unlessRolledBack) {
        super(message, false);
        this.outcome = outcome;
        this.unlessRolledBack = unlessRolledBack;
    }

    /**
     * @param reason why the work's outcome is unknown, without request data or secrets
     * @param outcome what every attempt of this scope is answered with, typically a 5xx problem
     */
    public static OutcomeUnknownException storing(String reason, StoredResponse outcome) {
        return new OutcomeUnknownException(reason, Objects.requireNonNull(outcome, "outcome"), null);
    }

    /**
     * Work that ran to its end but whose result cannot be stored (an HTTP response larger than may be kept): what
     * that means is the mode's to decide, not its caller's. Where the attempt's transaction holds what the work
     * wrote (transactional and joined modes), it rolls back, nothing took effect, and the engine throws
     * {@code failure} instead, leaving the key to a retry. Where it does not (leased mode), the work may have taken
     * effect: {@code outcome} is stored as final and this exception rethrown, as for {@link #storing}.
     *
     * @param failure what the caller gets when the attempt rolled back
     * @param reason why the result cannot be stored, without request data or secrets: this exception's message when
     *     nothing rolled back
     * @param outcome what every attempt of the scope is answered with when nothing rolled back
     */
    public static OutcomeUnknownException unlessRolledBack(IdempotencyException failure, String reason,
            StoredResponse outcome) {
        return new OutcomeUnknownException(reason, Objects.requireNonNull(outcome, "outcome"),
                Objects.requireNonNull(failure, "failure"));
    }

    /** Whether the mode decides what this means ({@link #unlessRolledBack}). */
    boolean isDecidedByMode() {
        return unlessRolledBack != null;
    }

    /**
     * Throws what {@link #unlessRolledBack} was given, for an engine whose attempt rolled back what the work wrote;
     * returns when this outcome is unknown whatever rolled back.
     */
    void rethrowIfRolledBack() {
        if (unlessRolledBack != null) {
            throw unlessRolledBack;
        }
    }

    /** The final outcome the engine stores for the scope. */
    public StoredResponse outcome() {
        return outcome;
    }

    @Override
    public String problemType() {
        return "outcome-unknown";
    }
}
