package dev.onceonly.spring.boot.web;

import dev.onceonly.http.Refusal;
import dev.onceonly.http.RequestOutcome;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What every Spring transport (the MVC filter, the WebFlux filter, asynchronous endpoints) asks of the protocol:
 * whether a request is its at all, and which refusal a failure is ({@link Refusal#of}, core's decision table), said
 * to the application's listeners once per request.
 */
final class IdempotencyProtocol {

    private final List<IdempotencyListener> listeners;

    IdempotencyProtocol(List<IdempotencyListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    /**
     * The operation of a request to {@code match}'s endpoint, or {@code null} when the protocol leaves the request
     * alone: it sent no key where none is required.
     */
    static @Nullable String operationOf(EndpointMatch match, String method, List<String> keys) {
        if (keys.isEmpty() && !match.endpoint().keyRequired()) {
            return null;
        }
        return match.endpoint().operationFor(method, match.route());
    }

    /**
     * The refusal that {@code failure} is ({@link Refusal#of}), said to the listeners, or {@code null} when it is the
     * transport's to throw on, said as {@link RequestOutcome#ERROR}.
     */
    @Nullable Refusal refusal(Throwable failure, String operation, boolean handlerStarted) {
        Refusal refusal = Refusal.of(failure, operation, handlerStarted);
        notify(operation, refusal == null ? RequestOutcome.ERROR : refusal.outcome());
        return refusal;
    }

    /** Tells the listeners how a request of {@code operation} ended. */
    void notify(String operation, RequestOutcome outcome) {
        for (IdempotencyListener listener : listeners) {
            listener.onRequest(operation, outcome);
        }
    }
}
