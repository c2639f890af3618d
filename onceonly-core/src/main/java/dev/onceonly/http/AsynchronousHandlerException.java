package dev.onceonly.http;

import dev.onceonly.IdempotencyException;

/**
 * The handler of an idempotent request started asynchronous processing, whose outcome cannot be stored: 500,
 * stored as the key's final outcome, since the asynchronous work may still take effect.
 */
public final class AsynchronousHandlerException extends IdempotencyException {

    private AsynchronousHandlerException(String operation) {
        super("The handler of operation '" + operation + "' answered asynchronously, which an idempotent endpoint "
                + "cannot store; it is not run again for this key", false);
    }

    public static AsynchronousHandlerException of(String operation) {
        return new AsynchronousHandlerException(operation);
    }

    @Override
    public String problemType() {
        return "asynchronous-handler";
    }
}
