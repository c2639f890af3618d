package dev.onceonly;

/**
 * A {@link TransactionRunner} could not commit because the transaction had been marked rollback-only, for example
 * by business code that caught its own failure. Nothing of the transaction took effect.
 */
public final class TransactionRollbackException extends IdempotencyException {

    public TransactionRollbackException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public String problemType() {
        return "transaction-rolled-back";
    }
}
