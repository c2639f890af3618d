package dev.onceonly;

/**
 * The attempt's lease was lost: a later attempt took the record over after the lease ran out. Thrown by
 * {@link Attempt#ensureLeaseHeld()} for work to stop early; the engine then stores nothing for this attempt and
 * answers with the outcome of the attempt that took over (or tells the caller it is still in progress).
 */
public final class LeaseLostException extends IdempotencyException {

    private LeaseLostException(String message) {
        super(message, false);
    }

    public static LeaseLostException of(IdempotencyScope scope, int attempt) {
        return new LeaseLostException("Attempt " + attempt + " of operation '" + scope.operation()
                + "' lost its lease to a later attempt");
    }

    @Override
    public String problemType() {
        return "lease-lost";
    }
}
