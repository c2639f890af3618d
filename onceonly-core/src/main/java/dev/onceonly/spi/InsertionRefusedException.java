package dev.onceonly.spi;

import dev.onceonly.IdempotencyException;
import java.util.Objects;

/**
 * The finished record that {@link IdempotencyStore#insertFinished} held back for the commit was refused when it was
 * sent: the scope had a record, or another transaction's held it longer than the lock wait. Thrown by the commit,
 * or by whichever call of the store in the same transaction sent the record before it; either way the transaction
 * can no longer commit anything, the work's writes neither. The engine catches it and claims as usual.
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
