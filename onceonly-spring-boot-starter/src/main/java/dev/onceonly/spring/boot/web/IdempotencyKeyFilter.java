package dev.onceonly.spring.boot.web;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyException;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyKeyFormat;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotentResult;
import dev.onceonly.LeaseLostException;
import dev.onceonly.LogFields;
import dev.onceonly.OutcomeUnknownException;
import dev.onceonly.StoredResponse;
import dev.onceonly.http.AsynchronousHandlerException;
import dev.onceonly.http.Refusal;
import dev.onceonly.http.RequestOutcome;
import dev.onceonly.http.ResponseTooLargeException;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The {@code Idempotency-Key} protocol for Spring MVC.
 *
 * <p>How a request to an idempotent endpoint is handled:
 * <ol>
 *   <li>Parse the key (400 if missing where required, malformed, or sent more than once) and resolve the owner
 *       from authentication.</li>
 *   <li>Read the body (413 beyond the limit; 415 if it has a content coding or an unknown charset) and
 *       fingerprint the request (400 if a JSON body is malformed).</li>
 *   <li>Let the engine run the rest of the chain at most once per (owner, operation, key), with the response
 *       buffered: in transactional mode nothing reaches the client before the transaction has committed.</li>
 *   <li>First execution: send the buffered response as the handler wrote it. Replay: send the stored status,
 *       allow-listed headers and body with {@code Idempotent-Replayed: true}.</li>
 *   <li>A handler that went asynchronous, or in leased mode wrote more than the buffer holds, may have taken
 *       effect: its request and every retry get a 500 problem stored as the key's final outcome, so it never runs
 *       twice.</li>
 *   <li>Refusals become RFC 9457 problems: 422 (or 409) for a reused key, 409 with {@code Retry-After} while the
 *       first request runs, 503 with {@code Retry-After} when the store is unreachable and nothing ran, 401 or
 *       403 without a usable owner, 500 when the response outgrew the buffer in transactional mode (the attempt
 *       rolled back).</li>
 * </ol>
 * The handler of an {@linkplain Idempotent#asynchronous() asynchronous endpoint} gets the request's scope and
 * fingerprint as an {@link AcceptedRequest} and runs outside the engine: it only accepts the operation.
 * Requests to other endpoints pass through untouched; a key on them is ignored. Runs after authentication.
 */
public final class IdempotencyKeyFilter extends OncePerRequestFilter {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyKeyFilter.class);

    private final IdempotentEndpoints endpoints;
    private final IdempotencyKeyFormat keyFormat;
    private final String headerName;
    private final RequestOwners owners;
    private final ResponseSnapshots snapshots;
    private final ProblemResponses problems;
    private final OperationResponses operations;
    private final long maxRequestBody;
    private final long maxBufferedResponse;
    private final IdempotencyProtocol protocol;

    IdempotencyKeyFilter(IdempotentEndpoints endpoints, IdempotencyKeyFormat keyFormat, String headerName,
            RequestOwners owners, ResponseSnapshots snapshots, OperationResponses operations,
            ProblemResponses problems, long maxRequestBody, long maxBufferedResponse,
            List<IdempotencyListener> listeners) {
        this.endpoints = endpoints;
        this.keyFormat = keyFormat;
        this.headerName = headerName;
        this.owners = owners;
        this.snapshots = snapshots;
        this.problems = problems;
        this.operations = operations;
        this.maxRequestBody = maxRequestBody;
        this.maxBufferedResponse = maxBufferedResponse;
        this.protocol = new IdempotencyProtocol(listeners);
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        EndpointMatch match = endpoints.match(request);
        List<String> keys = Collections.list(request.getHeaders(headerName));
        String operation = match == null ? null : IdempotencyProtocol.operationOf(match, request.getMethod(), keys);
        if (match == null || operation == null) {
            chain.doFilter(request, response);
            return;
        }
        LogFields.Scope fields = LogFields.Scope.NESTED;
        try {
            IdempotencyKey storedKey;
            IdempotencyScope scope;
            HttpServletRequest forwarded;
            Fingerprint fingerprint;
            try {
                IdempotencyKey key = keyFormat.parseHeader(keys);
                // Logged as the engine stores it: with digest-only keys, no log line carries the key itself.
                storedKey = match.endpoint().engine().keyStorage().stored(key);
                fields = LogFields.open(operation, storedKey);
                scope = IdempotencyScope.of(owners.ownerOf(request), operation, key);
                // Form and multipart bodies are parsed by the container; their fields and parts are fingerprinted.
                CachedBodyRequest cached = ServletFingerprints.isParsedByContainer(request)
                        ? null : CachedBodyRequest.read(request, maxRequestBody);
                forwarded = cached == null ? request : cached;
                fingerprint = ServletFingerprints.of(match.endpoint(), request, match.route(),
                        cached == null ? new byte[0] : cached.body(), maxRequestBody);
            } catch (IdempotencyException refused) {
                if (!refused(refused, operation, false, request, response)) {
                    throw refused;
                }
                return;
            }
            if (match.endpoint().asynchronous()) {
                // The handler accepts the request for a worker: nothing runs here that a retry must not repeat.
                forwarded.setAttribute(AcceptedRequest.ATTRIBUTE, new AcceptedRequest(
                        endpoints.asynchronousOperations(), scope, fingerprint, request.getRequestURI(),
                        request.getContextPath(), operations, protocol));
                chain.doFilter(forwarded, response);
                return;
            }
            execute(match.endpoint(), scope, storedKey, fingerprint, forwarded, response, chain);
        } finally {
            fields.close();
        }
    }

    private void execute(IdempotentEndpoint endpoint, IdempotencyScope scope, IdempotencyKey storedKey,
            Fingerprint fingerprint, HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        // The buffer of the handler's last run, or the final problem that replaced it
        AtomicReference<@Nullable BufferedResponse> answer = new AtomicReference<>();
        AtomicBoolean started = new AtomicBoolean();
        IdempotentResult<StoredResponse> result;
        try {
            result = endpoint.engine().execute(scope, fingerprint, snapshots.codec(scope.operation()), attempt -> {
                // A buffer of its own for every run: the engine runs the work again when a write-once attempt
                // rolled back on meeting a record (issue 39: a second run wrote after the first's bytes, and both
                // bodies were stored and replayed).
                BufferedResponse buffer = new BufferedResponse(response, problems, maxBufferedResponse);
                answer.set(buffer);
                started.set(true);
                request.setAttribute(FilterArgumentResolver.ATTEMPT_ATTRIBUTE, attempt);
                try {
                    chain.doFilter(request, buffer);
                } catch (ServletException e) {
                    if (e.getCause() instanceof LeaseLostException lost) {
                        // The handler stopped on a lost lease (Attempt.ensureLeaseHeld), which MVC wraps: the
                        // engine answers with what the attempt that took over stores.
                        throw lost;
                    }
                    requireWithinBound(request, buffer, answer);
                    throw e;
                } catch (IOException | RuntimeException e) {
                    // A write over the bound fails inside the handler; what it threw then is only the symptom.
                    requireWithinBound(request, buffer, answer);
                    throw e;
                }
                if (request.isAsyncStarted()) {
                    log.error("The handler of operation={} answered asynchronously; idempotent handlers must answer "
                            + "synchronously. Its key is answered with a stored 500 from now on.", scope.operation());
                    AsynchronousHandlerException asynchronous = AsynchronousHandlerException.of(scope.operation());
                    throw OutcomeUnknownException.storing(asynchronous.getMessage(),
                            finalProblem(asynchronous, request, buffer, answer));
                }
                requireWithinBound(request, buffer, answer);
                return snapshots.capture(buffer);
            });
        } catch (OutcomeUnknownException e) {
            Objects.requireNonNull(answer.get(), "the handler's buffer").sendToClient();
            if (request.isAsyncStarted()) {
                // The client has its answer; whatever the asynchronous work writes later is dropped with the buffer.
                request.getAsyncContext().complete();
            }
            protocol.notify(scope.operation(), RequestOutcome.ERROR);
            return;
        } catch (IOException | ServletException | RuntimeException | Error e) {
            if (!refused(e, scope.operation(), started.get(), request, response)) {
                throw e;
            }
            return;
        } catch (Exception unexpected) {
            protocol.notify(scope.operation(), RequestOutcome.ERROR);
            throw new ServletException(unexpected);
        }
        StoredResponse stored = result.value();
        LogFields.outcome(result.replayed(), stored.resourceId());
        BufferedResponse ran = answer.get();
        if (result.replayed() || ran == null) {
            // Also an outcome the engine stored without running the work (attempts exhausted by crashes)
            ResponseSnapshots.replay(stored, response);
            protocol.notify(scope.operation(), RequestOutcome.REPLAYED);
        } else {
            ran.sendToClient();
            protocol.notify(scope.operation(), RequestOutcome.EXECUTED);
        }
        log.debug("Idempotent request: operation={} key={} replayed={} status={}", scope.operation(), storedKey,
                result.replayed(), stored.status());
    }

    /**
     * Reports a response over the bound. In transactional mode the attempt rolls back, so nothing took effect. In
     * leased mode the handler may have taken effect (a payment call), so its key is never released for a re-run:
     * the 500 is stored as its final outcome. The engine tells which.
     */
    private void requireWithinBound(HttpServletRequest request, BufferedResponse buffer,
            AtomicReference<@Nullable BufferedResponse> answer) throws IOException {
        try {
            buffer.checkWithinBound();
        } catch (ResponseTooLargeException tooLarge) {
            throw OutcomeUnknownException.unlessRolledBack(tooLarge, "the response outgrew "
                    + "onceonly.http.max-buffered-response (" + maxBufferedResponse + " bytes)",
                    finalProblem(tooLarge, request, buffer, answer));
        }
    }

    /**
     * The outcome of a handler that may have taken effect but has no response to store (it went asynchronous, or
     * outgrew the buffer): {@code problem}, to store as the key's final outcome so that it never runs twice. The
     * handler's buffer is sealed first, since an asynchronous handler's thread may still write into it, and the
     * problem is written into a buffer of its own, which becomes the {@code answer}.
     */
    private StoredResponse finalProblem(IdempotencyException problem, HttpServletRequest request,
            BufferedResponse buffer, AtomicReference<@Nullable BufferedResponse> answer) throws IOException {
        buffer.seal();
        BufferedResponse problemResponse = new BufferedResponse((HttpServletResponse) buffer.getResponse(), problems,
                maxBufferedResponse);
        problems.write(problemResponse, problem, request.getRequestURI());
        answer.set(problemResponse);
        return snapshots.capture(problemResponse);
    }

    /** Answers the refusal {@code failure} is; {@code false} when it is none (the handler's own), to throw on. */
    private boolean refused(Throwable failure, String operation, boolean started, HttpServletRequest request,
            HttpServletResponse response) throws IOException {
        Refusal refusal = protocol.refusal(failure, operation, started);
        if (refusal != null) {
            problems.write(response, refusal.problem(), request.getRequestURI());
        }
        return refusal != null;
    }
}
