package dev.onceonly.spring.web.internal;

import dev.onceonly.Attempt;
import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyException;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyKeyFormat;
import dev.onceonly.IdempotencyKeyReusedException;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotentResult;
import dev.onceonly.LeaseLostException;
import dev.onceonly.OutcomeUnknownException;
import dev.onceonly.StoredResponse;
import dev.onceonly.http.Refusal;
import dev.onceonly.http.RequestOutcome;
import dev.onceonly.http.ResponseTooLargeException;
import dev.onceonly.spring.web.IdempotencyListener;
import dev.onceonly.spring.web.ProblemResponses;
import dev.onceonly.spring.web.ResponseSnapshots;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.MethodParameter;

/**
 * The {@code Idempotency-Key} protocol as every Spring transport (the MVC filter, the WebFlux filter, asynchronous
 * endpoints) follows it, with no server API. How a request to an idempotent endpoint is handled:
 * <ol>
 *   <li>The transport parses the key (400 if missing where required, malformed, or sent more than once), resolves
 *       the owner from authentication ({@link dev.onceonly.http.Owners}), reads the body (413 beyond the limit; 415
 *       if it has a content coding or an unknown charset) and fingerprints the request (400 if a JSON body is
 *       malformed).</li>
 *   <li>{@link #execute} lets the engine run the handler at most once per (owner, operation, key), into a
 *       {@link HeldResponse}: in transactional mode nothing reaches the client before the transaction has
 *       committed.</li>
 *   <li>First execution: the held response as the handler wrote it. Replay: the stored status, allow-listed
 *       headers and body with {@code Idempotent-Replayed: true}.</li>
 *   <li>A handler that escaped (went asynchronous, left its transaction's thread), or in leased mode wrote more
 *       than the buffer holds, may have taken effect: its request and every retry get a 500 problem stored as the
 *       key's final outcome, so it never runs twice.</li>
 *   <li>Refusals become RFC 9457 problems ({@link Refusal#of}, core's decision table): 422 (or 409) for a reused
 *       key, 409 with {@code Retry-After} while the first request runs, 503 with {@code Retry-After} when the store
 *       is unreachable and nothing ran, 401 or 403 without a usable owner, 500 when the response outgrew the buffer
 *       in transactional mode (the attempt rolled back).</li>
 * </ol>
 * The application's listeners are told how each request ended, once. A transport only adapts: it reads the request,
 * runs its handler into a response of its own, and writes the {@link Answer}.
 */
public final class IdempotencyProtocol {

    /** The request or exchange attribute the running {@link Attempt} is under, for the handler's argument. */
    public static final String ATTEMPT_ATTRIBUTE = Attempt.class.getName();

    private static final Logger log = LoggerFactory.getLogger(IdempotencyProtocol.class);
    private static final Set<String> CALLER_PROBLEMS = Set.of("idempotency-key-reused", "request-in-progress");

    private final IdempotencyKeyFormat keyFormat;
    private final String headerName;
    private final ResponseSnapshots snapshots;
    private final ProblemResponses problems;
    private final long maxRequestBody;
    private final long maxBufferedResponse;
    private final List<IdempotencyListener> listeners;

    /**
     * @param headerName the header the key is sent in
     * @param maxRequestBody the most body bytes a request may have to be fingerprinted
     * @param maxBufferedResponse the most body bytes a {@link HeldResponse} holds, named in the too-large reason
     */
    public IdempotencyProtocol(IdempotencyKeyFormat keyFormat, String headerName, ResponseSnapshots snapshots,
            ProblemResponses problems, long maxRequestBody, long maxBufferedResponse,
            List<IdempotencyListener> listeners) {
        this.keyFormat = keyFormat;
        this.headerName = headerName;
        this.snapshots = snapshots;
        this.problems = problems;
        this.maxRequestBody = maxRequestBody;
        this.maxBufferedResponse = maxBufferedResponse;
        this.listeners = List.copyOf(listeners);
    }

    public String headerName() {
        return headerName;
    }

    public ProblemResponses problems() {
        return problems;
    }

    public long maxRequestBody() {
        return maxRequestBody;
    }

    public long maxBufferedResponse() {
        return maxBufferedResponse;
    }

    /**
     * The operation of a request to {@code match}'s endpoint that sent {@code keys} (the values of its key header),
     * or {@code null} when the protocol leaves the request alone: it sent no key where none is required.
     */
    public static @Nullable String operationOf(EndpointMatch match, String method, List<String> keys) {
        if (keys.isEmpty() && !match.endpoint().keyRequired()) {
            return null;
        }
        return match.endpoint().operationFor(method, match.route());
    }

    /**
     * The key a request sent as the values of its key header.
     *
     * @throws dev.onceonly.InvalidIdempotencyKeyException if it is missing, malformed, or sent more than once
     */
    public IdempotencyKey key(List<String> keys) {
        return keyFormat.parseHeader(keys);
    }

    /**
     * The answer to a request whose outcome this process remembers, found without touching the store (so without
     * blocking, on an event loop): its replay, or the refusal of a reused key; {@code null} if none is remembered.
     */
    public <R extends HeldResponse> @Nullable Answer<R> remembered(IdempotentEndpoint endpoint, IdempotencyScope scope,
            Fingerprint fingerprint) {
        Optional<IdempotentResult<StoredResponse>> remembered;
        try {
            remembered = endpoint.engine().replayFromMemory(scope, fingerprint, snapshots.codec(scope.operation()));
        } catch (IdempotencyKeyReusedException reused) {
            return answerTo(reused, scope.operation(), false);
        }
        if (remembered.isEmpty()) {
            return null;
        }
        notify(scope.operation(), RequestOutcome.REPLAYED);
        return new Answer.Replay<>(remembered.get().value());
    }

    /** A handler's response, held back until its outcome is settled: what each transport's buffer offers. */
    public interface HeldResponse {

        int status();

        @Nullable String contentType();

        /** The headers the handler set, without those of filters before ours and the content type. */
        Map<String, List<String>> heldHeaders();

        byte[] content();

        /** Whether the handler wrote more than the bound; such a body was not held. */
        boolean overflowed();

        /** Drops every later write, such as those of a handler's thread that outlived its attempt. */
        void seal();
    }

    /** How a transport runs the handler of one request. */
    public interface Handler<R extends HeldResponse> {

        /** A response to hold one run back in: one for every run, since the engine may run the work again. */
        R newResponse();

        /**
         * Runs the handler once into {@code response}.
         *
         * @throws LeaseLostException unwrapped from whatever the server wrapped it in, when the handler stopped on a
         *     lost lease
         * @throws Exception what the handler threw, unwrapped likewise
         */
        void run(Attempt attempt, R response) throws Exception;

        /**
         * After a run, whether it failed or not: the problem to store as the key's final outcome when the handler
         * may have taken effect where nothing can store it (it went asynchronous, it left the thread of its
         * transaction), or {@code null}.
         */
        @Nullable IdempotencyException escaped(Attempt attempt, R response);

        /** A response that holds {@code problem} alone, sent instead of the handler's. */
        R problemResponse(IdempotencyException problem);
    }

    /** What a transport answers a request with. */
    public sealed interface Answer<R extends HeldResponse> {

        /**
         * Sends {@code response} as it is held: the first execution's, or the final problem of a handler that may
         * have taken effect.
         *
         * @param stored what was stored of it; {@code null} for the final problem of an outcome the engine did not
         *     store as the handler left it
         */
        record Send<R extends HeldResponse>(R response, @Nullable StoredResponse stored) implements Answer<R> {
        }

        /** Replays a stored outcome, marked as replayed. */
        record Replay<R extends HeldResponse>(StoredResponse stored) implements Answer<R> {
        }

        /** Answers with the refusal's problem. */
        record Refuse<R extends HeldResponse>(Refusal refusal) implements Answer<R> {
        }

        /** The handler's own failure, which the transport throws on as its server expects. */
        record Fail<R extends HeldResponse>(Throwable failure) implements Answer<R> {
        }
    }

    /**
     * Runs {@code handler} at most once per (owner, operation, key) of {@code scope}, as its endpoint's engine
     * decides. A run that wrote more than the bound, or that {@linkplain Handler#escaped escaped} the protocol, may
     * have taken effect with nothing storable: where the attempt's transaction holds the work it rolls back
     * (too large) and the key stays free; otherwise its problem becomes the key's final outcome
     * ({@link OutcomeUnknownException#unlessRolledBack}), sent now and replayed to every retry, so it never runs
     * twice.
     */
    public <R extends HeldResponse> Answer<R> execute(IdempotentEndpoint endpoint, IdempotencyScope scope,
            Fingerprint fingerprint, Handler<R> handler) {
        String operation = scope.operation();
        // The response of the handler's last run, or the final problem that replaced it
        AtomicReference<@Nullable R> answer = new AtomicReference<>();
        AtomicBoolean started = new AtomicBoolean();
        IdempotentResult<StoredResponse> result;
        try {
            result = endpoint.engine().execute(scope, fingerprint, snapshots.codec(operation), attempt -> {
                // A response of its own for every run: the engine runs the work again when a write-once attempt
                // rolled back on meeting a record (issue 39: a second run wrote after the first's bytes, and both
                // bodies were stored and replayed).
                R response = handler.newResponse();
                answer.set(response);
                started.set(true);
                Exception failure = null;
                try {
                    handler.run(attempt, response);
                } catch (LeaseLostException lost) {
                    if (attempt.isLeaseLost()) {
                        // This attempt's own lease: the engine answers with what the attempt that took over stores.
                        throw lost;
                    }
                    // Another attempt's, from a call the handler made: a failure of the handler's like any other,
                    // after the checks below (a transactional handler may have left its transaction first).
                    failure = lost;
                } catch (Exception e) {
                    // A write over the bound fails inside the handler; what it threw then is only the symptom.
                    failure = e;
                }
                IdempotencyException escaped = handler.escaped(attempt, response);
                if (escaped != null) {
                    throw OutcomeUnknownException.storing(escaped.getMessage(),
                            finalProblem(escaped, handler, response, answer));
                }
                if (response.overflowed()) {
                    ResponseTooLargeException tooLarge = ResponseTooLargeException.of(maxBufferedResponse);
                    throw OutcomeUnknownException.unlessRolledBack(tooLarge, "the response outgrew "
                            + "onceonly.http.max-buffered-response (" + maxBufferedResponse + " bytes)",
                            finalProblem(tooLarge, handler, response, answer));
                }
                if (failure != null) {
                    throw failure;
                }
                return capture(response);
            });
        } catch (OutcomeUnknownException unknown) {
            notify(operation, RequestOutcome.ERROR);
            R held = answer.get();
            return held != null ? new Answer.Send<>(held, null) : new Answer.Fail<>(unknown);
        } catch (Exception | Error failure) {
            return answerTo(failure, operation, started.get());
        }
        StoredResponse stored = result.value();
        log.debug("Idempotent request: operation={} replayed={} status={}", operation, result.replayed(),
                stored.status());
        R ran = answer.get();
        // Also an outcome the engine stored without running the work (attempts exhausted by crashes)
        if (result.replayed() || ran == null) {
            notify(operation, RequestOutcome.REPLAYED);
            return new Answer.Replay<>(stored);
        }
        notify(operation, RequestOutcome.EXECUTED);
        return new Answer.Send<>(ran, stored);
    }

    /**
     * The outcome of a handler that may have taken effect but has no response to store: {@code problem}, in a
     * response of its own that becomes the {@code answer}. The handler's is sealed first, since a thread of the
     * handler may still write into it.
     */
    private <R extends HeldResponse> StoredResponse finalProblem(IdempotencyException problem, Handler<R> handler,
            R response, AtomicReference<@Nullable R> answer) {
        response.seal();
        R problemResponse = handler.problemResponse(problem);
        answer.set(problemResponse);
        return capture(problemResponse);
    }

    /** The refusal that {@code failure} is, or the failure itself when it is none, said as {@link #refusal}. */
    public <R extends HeldResponse> Answer<R> answerTo(Throwable failure, String operation, boolean handlerStarted) {
        Refusal refusal = refusal(failure, operation, handlerStarted);
        return refusal != null ? new Answer.Refuse<>(refusal) : new Answer.Fail<>(failure);
    }

    /**
     * The refusal that {@code failure} is ({@link Refusal#of}), said to the listeners, or {@code null} when it is the
     * transport's to throw on, said as {@link RequestOutcome#ERROR}.
     */
    public @Nullable Refusal refusal(Throwable failure, String operation, boolean handlerStarted) {
        Refusal refusal = Refusal.of(failure, operation, handlerStarted);
        notify(operation, refusal == null ? RequestOutcome.ERROR : refusal.outcome());
        return refusal;
    }

    /**
     * What an idempotent call of the handler's ({@link dev.onceonly.spring.method.IdempotentMethod}) threw that
     * its HTTP client can act on, answered with the same problem as a request of the protocol's: a key reused with
     * other arguments (422 or 409), a first call still running (409 with {@code Retry-After}): the two that
     * {@link Refusal#of} answers whether or not the handler ran. Their texts name the operation alone.
     * {@code null} for anything else, which is the application's failure to answer: a store failure or a call
     * without an owner is the server's, not the client's.
     */
    public static @Nullable IdempotencyException callerProblem(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof IdempotencyException problem && CALLER_PROBLEMS.contains(problem.problemType())) {
                return problem;
            }
        }
        return null;
    }

    /**
     * Why a handler's {@link Attempt} or {@link dev.onceonly.spring.web.AcceptedRequest} parameter has no value: the
     * filter makes them only for requests with a key to the endpoints they belong to.
     */
    public static IllegalStateException missingArgument(MethodParameter parameter) {
        boolean attempt = parameter.getParameterType() == Attempt.class;
        return new IllegalStateException("Handler parameter of type " + parameter.getParameterType().getSimpleName()
                + " in " + parameter.getExecutable().toGenericString() + " needs " + (attempt
                ? "an idempotent endpoint (@Idempotent or onceonly.http.endpoints)"
                : "an asynchronous endpoint (@Idempotent(asynchronous = true))")
                + ", and a request with an Idempotency-Key");
    }

    private StoredResponse capture(HeldResponse response) {
        return StoredResponses.capture(snapshots, response);
    }

    /** Tells the listeners how a request of {@code operation} ended. */
    public void notify(String operation, RequestOutcome outcome) {
        for (IdempotencyListener listener : listeners) {
            listener.onRequest(operation, outcome);
        }
    }
}
