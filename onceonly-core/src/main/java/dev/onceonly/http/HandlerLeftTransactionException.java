package dev.onceonly.http;

import dev.onceonly.IdempotencyException;

/**
 * A WebFlux handler in transactional mode completed on another thread than the one holding its transaction: what it
 * wrote there committed on its own, so its key is never run again and answers 500. Make the endpoint leased, or keep
 * the handler's blocking calls where it is subscribed.
 */
public final class HandlerLeftTransactionException extends IdempotencyException {

    private HandlerLeftTransactionException(String message) {
        super(message, false);
    }

    public static HandlerLeftTransactionException of(String operation) {
        return new HandlerLeftTransactionException("The handler of operation '" + operation + "' completed outside "
                + "its transaction, so its outcome is unknown; this key is not run again");
    }

    @Override
    public String problemType() {
        return "handler-left-transaction";
    }
}
