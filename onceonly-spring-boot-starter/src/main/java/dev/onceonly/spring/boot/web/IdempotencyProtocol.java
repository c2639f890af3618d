package dev.onceonly.spring.boot.web;

import dev.onceonly.IdempotencyException;
import dev.onceonly.IdempotencyKeyReusedException;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.InvalidIdempotencyKeyException;
import dev.onceonly.MalformedRequestBodyException;
import dev.onceonly.RequestInProgressException;
import dev.onceonly.spring.boot.web.IdempotencyListener.Outcome;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code Idempotency-Key} protocol's decision table, one for every transport (the Spring MVC filter, the WebFlux
 * filter, asynchronous endpoints): whether a request is the protocol's at all, and which refusal, problem and
 * listener outcome each failure is. The transports only read requests and write what is decided here.
 *
 * <table>
 *   <caption>What a request to an idempotent endpoint can meet</caption>
 *   <tr><th>met</th><th>answer</th><th>outcome</th></tr>
 *   <tr><td>a malformed, missing or repeated key; a malformed, too large or encoded body; no usable owner</td>
 *       <td>400, 413, 415, 401 or 403 problem</td><td>{@link Outcome#INVALID_REQUEST}</td></tr>
 *   <tr><td>the key used with another request</td><td>422 (409 per configuration) problem</td>
 *       <td>{@link Outcome#KEY_REUSED}</td></tr>
 *   <tr><td>the key's first request still running</td><td>409 problem with {@code Retry-After}</td>
 *       <td>{@link Outcome#IN_PROGRESS}</td></tr>
 *   <tr><td>a response too large to keep, rolled back (transactional modes; leased mode stores it final)</td>
 *       <td>500 problem</td><td>{@link Outcome#ERROR}</td></tr>
 *   <tr><td>the store unreachable, or no thread to run on, before the handler ran</td>
 *       <td>503 problem with {@code Retry-After}</td><td>{@link Outcome#STORE_UNAVAILABLE}</td></tr>
 *   <tr><td>anything else: the handler's own failure, or the store's once the handler ran</td>
 *       <td>the application's error handling</td><td>{@link Outcome#ERROR}</td></tr>
 * </table>
 */
final class IdempotencyProtocol {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyProtocol.class);

    private final List<IdempotencyListener> listeners;

    IdempotencyProtocol(List<IdempotencyListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    /**
     * A refusal of the request, before or instead of its handler's run: its problem, and the listeners' outcome.
     */
    record Refusal(Outcome outcome, IdempotencyException problem) {
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
     * The refusal that {@code failure} is, said to the listeners, or {@code null} when it is not the protocol's to
     * answer (the handler's own failure, or the store's after the handler started), which is said as an
     * {@link Outcome#ERROR} and is the transport's to throw on.
     *
     * @param handlerStarted whether the handler ran: a store failure after that is no "nothing ran"
     */
    @Nullable Refusal refusal(Throwable failure, String operation, boolean handlerStarted) {
        Refusal refusal = switch (failure) {
            case InvalidIdempotencyKeyException e -> new Refusal(Outcome.INVALID_REQUEST, e);
            case MalformedRequestBodyException e -> new Refusal(Outcome.INVALID_REQUEST, e);
            case RequestBodyTooLargeException e -> new Refusal(Outcome.INVALID_REQUEST, e);
            case UnsupportedRequestEncodingException e -> new Refusal(Outcome.INVALID_REQUEST, e);
            case AuthenticationRequiredException e -> new Refusal(Outcome.INVALID_REQUEST, e);
            case OwnerUnresolvableException e -> new Refusal(Outcome.INVALID_REQUEST, e);
            case IdempotencyKeyReusedException e -> new Refusal(Outcome.KEY_REUSED, e);
            case RequestInProgressException e -> new Refusal(Outcome.IN_PROGRESS, e);
            case ResponseTooLargeException e -> {
                log.warn("Response of operation '{}' not kept: {} The attempt was rolled back, nothing was sent or "
                        + "stored", operation, e.getMessage());
                yield new Refusal(Outcome.ERROR, e);
            }
            case ServerBusyException e -> {
                log.warn("OnceOnly's scheduler has no room for operation={}; answered 503", operation);
                yield new Refusal(Outcome.STORE_UNAVAILABLE, e);
            }
            case IdempotencyStoreException e when !handlerStarted -> {
                // Fail closed: the store (or the transaction around the claim) failed before anything ran. The
                // store's own message names no row: stores say what failed, never the database's text.
                log.warn("Idempotency store unavailable for operation={}: {}", operation, e.getMessage());
                yield new Refusal(Outcome.STORE_UNAVAILABLE, new IdempotencyStoreException(
                        "The idempotency store is unavailable; the request was not executed", e));
            }
            default -> null;
        };
        notify(operation, refusal == null ? Outcome.ERROR : refusal.outcome());
        return refusal;
    }

    /** Tells the listeners how a request of {@code operation} ended. */
    void notify(String operation, Outcome outcome) {
        for (IdempotencyListener listener : listeners) {
            listener.onRequest(operation, outcome);
        }
    }
}
