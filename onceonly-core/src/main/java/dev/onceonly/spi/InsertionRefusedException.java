package dev.onceonly.spi;

import dev.onceonly.IdempotencyException;
import java.util.Objects;

/**
 * The commit of a transaction refused the finished record that {@link IdempotencyStore#insertFinished} sent with it:
 * the scope had a record, or another transaction's held it longer than the lock wait. Nothing was committed, the
 * work's writes neither. The engine catches it and claims as usual; it reaches no one else.
 */
public final class InsertionRefusedException extends IdempotencyException {

    private final IdempotencyStore.Insertion insertion;

    /**
     * @param insertion {@link IdempotencyStore.Insertion#EXISTS} or {@link IdempotencyStore.Insertion#LOCKED}
     * @param message safe facts only, no database text
     */
    public InsertionRefusedException(IdempotencyStore.Insertion insertion, String message) {
        super(message, false);
        if (Objects.requireNonNull(insertion, "insertion") == IdempotencyStore.Insertion.INSERTED) {
            throw new IllegalArgumentException("an insertion that was made is no refusal");
        }
        this.insertion = insertion;
    }

    /** Why: the scope has a record, or another transaction's held it too long. */
    public IdempotencyStore.Insertion insertion() {
        return insertion;
    }

    /** As a store failure: it means the same to whoever calls a store without the engine. */
    @Override
    public String problemType() {
        return "idempotency-store-unavailable";
    }
}
