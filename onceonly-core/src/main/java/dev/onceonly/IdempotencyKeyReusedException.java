package dev.onceonly;

/**
 * The key was already used in this scope for a different request (another fingerprint). The stored outcome
 * belongs to that other request, so it is neither replayed nor executed again.
 */
public final class IdempotencyKeyReusedException extends IdempotencyException {

    private final IdempotencyScope scope;

    private IdempotencyKeyReusedException(IdempotencyScope scope) {
        // The message becomes the problem's detail, which the client reads: it names no key (the client knows its
        // own, and a stored digest would let whoever holds a copy of the table test guessed keys).
        // Said of a key whatever carried it (a header, a method's parameter, a message's id).
        super("This idempotency key of operation '" + scope.operation() + "' was already used with a different "
                + "request", false);
        this.scope = scope;
    }

    public static IdempotencyKeyReusedException of(IdempotencyScope scope) {
        return new IdempotencyKeyReusedException(scope);
    }

    /** The scope with its key as the engine stores it: the digest when only {@link KeyStorage digests} are kept. */
    public IdempotencyScope scope() {
        return scope;
    }

    @Override
    public String problemType() {
        return "idempotency-key-reused";
    }
}
