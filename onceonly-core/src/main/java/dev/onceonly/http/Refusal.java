package dev.onceonly.http;

import dev.onceonly.IdempotencyException;
import dev.onceonly.IdempotencyKeyReusedException;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.InvalidIdempotencyKeyException;
import dev.onceonly.MalformedRequestBodyException;
import dev.onceonly.RequestInProgressException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A request to an idempotent endpoint refused before or instead of its handler's run: the problem it is answered
 * with, and how it ended. {@link #of} is the protocol's decision table, the one every transport answers by.
 *
 * <table>
 *   <caption>What a request to an idempotent endpoint can meet</caption>
 *   <tr><th>met</th><th>answer</th><th>outcome</th></tr>
 *   <tr><td>before the handler ran: a malformed, missing or repeated key; a malformed, too large or encoded body;
 *       no usable owner</td>
 *       <td>400, 413, 415, 401 or 403 problem</td><td>{@link RequestOutcome#INVALID_REQUEST}</td></tr>
 *   <tr><td>the key used with another request, whenever the engine says so (also after a run it rolled back), and
 *       likewise a key an idempotent call of the handler's reused</td><td>422 (409 per configuration) problem</td>
 *       <td>{@link RequestOutcome#KEY_REUSED}</td></tr>
 *   <tr><td>the key's first request still running, or the first call of an idempotent call the handler made</td>
 *       <td>409 problem with {@code Retry-After}</td><td>{@link RequestOutcome#IN_PROGRESS}</td></tr>
 *   <tr><td>a response too large to keep, rolled back (transactional modes; leased mode stores it final)</td>
 *       <td>500 problem</td><td>{@link RequestOutcome#ERROR}</td></tr>
 *   <tr><td>the store unreachable, or no thread to run on, before the handler ran</td>
 *       <td>503 problem with {@code Retry-After}</td><td>{@link RequestOutcome#STORE_UNAVAILABLE}</td></tr>
 *   <tr><td>anything else: the handler's own failure (also the other types above, from a call it made), or the
 *       store's once the handler ran</td>
 *       <td>none: the application's error handling answers</td><td>{@link RequestOutcome#ERROR}</td></tr>
 * </table>
 *
 * @param outcome how the request ended
 * @param problem what it is answered with
 */
public record Refusal(RequestOutcome outcome, IdempotencyException problem) {

    private static final Logger log = LoggerFactory.getLogger(Refusal.class);

    /**
     * The refusal that {@code failure} is, or {@code null} when it is not the protocol's to answer: the handler's own
     * failure, or the store's after the handler started, which end the request as {@link RequestOutcome#ERROR}.
     *
     * @param operation the request's operation, for the log
     * @param handlerStarted whether the handler ran: what it threw is its own, even a protocol exception from an
     *     idempotent call it made, and a store failure after that is no "nothing ran"
     */
    public static @Nullable Refusal of(Throwable failure, String operation, boolean handlerStarted) {
        return switch (failure) {
            case InvalidIdempotencyKeyException e when !handlerStarted ->
                    new Refusal(RequestOutcome.INVALID_REQUEST, e);
            case MalformedRequestBodyException e when !handlerStarted ->
                    new Refusal(RequestOutcome.INVALID_REQUEST, e);
            case RequestBodyTooLargeException e when !handlerStarted -> new Refusal(RequestOutcome.INVALID_REQUEST, e);
            case UnsupportedRequestEncodingException e when !handlerStarted ->
                    new Refusal(RequestOutcome.INVALID_REQUEST, e);
            case AuthenticationRequiredException e when !handlerStarted ->
                    new Refusal(RequestOutcome.INVALID_REQUEST, e);
            case OwnerUnresolvableException e when !handlerStarted -> new Refusal(RequestOutcome.INVALID_REQUEST, e);
            case IdempotencyKeyReusedException e -> new Refusal(RequestOutcome.KEY_REUSED, e);
            case RequestInProgressException e -> new Refusal(RequestOutcome.IN_PROGRESS, e);
            case ResponseTooLargeException e -> {
                log.warn("Response of operation '{}' not kept: {} The attempt was rolled back, nothing was sent or "
                        + "stored", operation, e.getMessage());
                yield new Refusal(RequestOutcome.ERROR, e);
            }
            case ServerBusyException e when !handlerStarted -> {
                log.warn("No thread free to run operation={}; answered 503", operation);
                yield new Refusal(RequestOutcome.STORE_UNAVAILABLE, e);
            }
            case IdempotencyStoreException e when !handlerStarted -> {
                // Fail closed: the store (or the transaction around the claim) failed before anything ran. Stores
                // say what failed in their messages, never the database's text.
                log.warn("Idempotency store unavailable for operation={}: {}", operation, e.getMessage());
                yield new Refusal(RequestOutcome.STORE_UNAVAILABLE, new IdempotencyStoreException(
                        "The idempotency store is unavailable; the request was not executed", e));
            }
            default -> null;
        };
    }
}
