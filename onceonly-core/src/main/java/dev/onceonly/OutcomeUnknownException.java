package dev.onceonly;

import java.util.Objects;

/**
 * Thrown by work that may already have taken effect but has no result to give, such as an HTTP handler that went
 * on asynchronously: running it again could repeat its effect.
 *
 * <p>The engine never releases the key for it. It stores {@link #outcome()} as the scope's final outcome
 * (FAILED_FINAL, whatever the {@link OutcomePolicy} says, as given and not through the {@link OutcomeCodec}); in
 * transactional mode that commits with what the work wrote. Then it rethrows this exception to its caller, which
 * answers with the outcome; every retry gets it replayed, so the work never runs twice in its scope. If the
 * outcome cannot be stored (the store fails, or the transaction cannot commit), this exception is still what the
 * caller gets, never a "nothing ran" store error, because the work may go on.
 */
public final class OutcomeUnknownException extends IdempotencyException {

    private final transient StoredResponse outcome;

    private OutcomeUnknownException(String message, StoredResponse outcome) {
        super(message, false);
        this.outcome = outcome;
    }

    /**
     * @param reason why the work's outcome is unknown, without request data or secrets
     * @param outcome what every attempt of this scope is answered with, typically a 5xx problem
     */
    public static OutcomeUnknownException storing(String reason, StoredResponse outcome) {
        return new OutcomeUnknownException(reason, Objects.requireNonNull(outcome, "outcome"));
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
