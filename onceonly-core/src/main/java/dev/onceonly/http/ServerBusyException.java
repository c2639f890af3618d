package dev.onceonly.http;

import dev.onceonly.IdempotencyException;

/** OnceOnly's scheduler of a WebFlux application has no room for the request: 503, nothing ran. */
public final class ServerBusyException extends IdempotencyException {

    private ServerBusyException() {
        super("The server is too busy to run this request now; it was not executed", false);
    }

    public static ServerBusyException of() {
        return new ServerBusyException();
    }

    @Override
    public String problemType() {
        return "server-busy";
    }
}
