package dev.onceonly.spring.web.servlet;

import dev.onceonly.Attempt;
import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyException;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyKeyFormat;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.LeaseLostException;
import dev.onceonly.LogFields;
import dev.onceonly.http.AsynchronousHandlerException;
import dev.onceonly.spring.web.AcceptedRequest;
import dev.onceonly.spring.web.IdempotencyListener;
import dev.onceonly.spring.web.Idempotent;
import dev.onceonly.spring.web.OperationResponses;
import dev.onceonly.spring.web.ProblemResponses;
import dev.onceonly.spring.web.ResponseSnapshots;
import dev.onceonly.spring.web.internal.Acceptance;
import dev.onceonly.spring.web.internal.EndpointMatch;
import dev.onceonly.spring.web.internal.IdempotencyProtocol;
import dev.onceonly.spring.web.internal.IdempotencyProtocol.Answer;
import dev.onceonly.spring.web.internal.RequestEncoding;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The {@code Idempotency-Key} protocol ({@link IdempotencyProtocol}) for Spring MVC: reads the key, the owner and
 * the body (a form's fields and parts as the container parsed them), and runs the rest of the chain into a
 * {@link BufferedResponse} of its own for every attempt. A handler that went asynchronous may have taken effect
 * where nothing stores it: its key ends with a stored 500. The handler of an
 * {@linkplain Idempotent#asynchronous() asynchronous endpoint} gets the request's scope and fingerprint as an
 * {@link AcceptedRequest} and runs outside the engine: it only accepts the operation. Requests to other endpoints
 * pass through untouched; a key on them is ignored. Runs after authentication.
 */
public final class IdempotencyKeyFilter extends OncePerRequestFilter {

    private static final Logger log = LoggerFactory.getLogger(IdempotencyKeyFilter.class);

    private final IdempotentEndpoints endpoints;
    private final RequestOwners owners;
    private final OperationResponses operations;
    private final IdempotencyProtocol protocol;

    public IdempotencyKeyFilter(IdempotentEndpoints endpoints, IdempotencyKeyFormat keyFormat, String headerName,
            RequestOwners owners, ResponseSnapshots snapshots, OperationResponses operations,
            ProblemResponses problems, long maxRequestBody, long maxBufferedResponse,
            List<IdempotencyListener> listeners) {
        this.endpoints = endpoints;
        this.owners = owners;
        this.operations = operations;
        this.protocol = new IdempotencyProtocol(keyFormat, headerName, snapshots, problems, maxRequestBody,
                maxBufferedResponse, listeners);
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        EndpointMatch match = endpoints.match(request);
        List<String> keys = Collections.list(request.getHeaders(protocol.headerName()));
        String operation = match == null ? null : IdempotencyProtocol.operationOf(match, request.getMethod(), keys);
        if (match == null || operation == null) {
            chain.doFilter(request, response);
            return;
        }
        LogFields.Scope fields = LogFields.Scope.NESTED;
        try {
            IdempotencyScope scope;
            HttpServletRequest forwarded;
            Fingerprint fingerprint;
            try {
                IdempotencyKey key = protocol.key(keys);
                // Logged as the engine stores it: with digest-only keys, no log line carries the key itself.
                fields = LogFields.open(operation, match.endpoint().engine().keyStorage().stored(key));
                scope = IdempotencyScope.of(owners.ownerOf(request), operation, key);
                // Form and multipart bodies are parsed by the container; their fields and parts are fingerprinted.
                RequestEncoding encoding = ServletFingerprints.encoding(request);
                CachedBodyRequest cached = encoding.isForm() || encoding.isMultipart()
                        ? null : CachedBodyRequest.read(request, protocol.maxRequestBody());
                forwarded = cached == null ? request : cached;
                fingerprint = ServletFingerprints.of(match.endpoint(), request, match.route(), encoding,
                        cached == null ? new byte[0] : cached.body(), protocol.maxRequestBody());
            } catch (IdempotencyException refused) {
                answer(protocol.answerTo(refused, operation, false), request, response);
                return;
            }
            if (match.endpoint().asynchronous()) {
                // The handler accepts the request for a worker: nothing runs here that a retry must not repeat.
                forwarded.setAttribute(Acceptance.ATTRIBUTE, new Acceptance(
                        endpoints.asynchronousOperations(), scope, fingerprint, request.getRequestURI(),
                        request.getContextPath(), operations, protocol));
                chain.doFilter(forwarded, response);
                return;
            }
            answer(protocol.execute(match.endpoint(), scope, fingerprint,
                    new ServletHandler(forwarded, response, chain, protocol)), forwarded, response);
        } finally {
            fields.close();
        }
    }

    private void answer(Answer<BufferedResponse> answer, HttpServletRequest request, HttpServletResponse response)
            throws IOException, ServletException {
        switch (answer) {
            case Answer.Send<BufferedResponse> send -> {
                if (send.stored() != null) {
                    LogFields.outcome(false, send.stored().resourceId());
                }
                send.response().sendToClient();
                if (request.isAsyncStarted()) {
                    // The client has its answer; whatever the asynchronous work writes later is dropped with the
                    // buffer.
                    request.getAsyncContext().complete();
                }
            }
            case Answer.Replay<BufferedResponse> replay -> {
                LogFields.outcome(true, replay.stored().resourceId());
                ServletAnswers.replay(response, replay.stored());
            }
            case Answer.Refuse<BufferedResponse> refuse ->
                    ServletAnswers.problem(response, protocol.problems().render(refuse.refusal().problem(),
                            request.getRequestURI()));
            case Answer.Fail<BufferedResponse> fail -> {
                switch (fail.failure()) {
                    case IOException e -> throw e;
                    case ServletException e -> throw e;
                    case RuntimeException e -> throw e;
                    case Error e -> throw e;
                    case Throwable e -> throw new ServletException(e);
                }
            }
        }
    }

    /** Runs the rest of the chain into a buffer of its own for every attempt. */
    private record ServletHandler(HttpServletRequest request, HttpServletResponse response, FilterChain chain,
            IdempotencyProtocol protocol) implements IdempotencyProtocol.Handler<BufferedResponse> {

        @Override
        public BufferedResponse newResponse() {
            return new BufferedResponse(response, protocol.problems(), protocol.maxBufferedResponse());
        }

        @Override
        public void run(Attempt attempt, BufferedResponse buffer) throws Exception {
            request.setAttribute(IdempotencyProtocol.ATTEMPT_ATTRIBUTE, attempt);
            try {
                chain.doFilter(request, buffer);
            } catch (ServletException e) {
                // MVC wraps what a handler throws: a lost lease (Attempt.ensureLeaseHeld), and the refusal of an
                // idempotent call it made, which the protocol answers as WebFlux does, where nothing wraps it
                if (e.getCause() instanceof LeaseLostException lost) {
                    throw lost;
                }
                IdempotencyException callerProblem = IdempotencyProtocol.callerProblem(e);
                throw callerProblem != null ? callerProblem : e;
            }
        }

        @Override
        public @Nullable IdempotencyException escaped(Attempt attempt, BufferedResponse buffer) {
            if (!request.isAsyncStarted()) {
                return null;
            }
            String operation = attempt.scope().operation();
            log.error("The handler of operation={} answered asynchronously; idempotent handlers must answer "
                    + "synchronously. Its key is answered with a stored 500 from now on.", operation);
            return AsynchronousHandlerException.of(operation);
        }

        @Override
        public BufferedResponse problemResponse(IdempotencyException problem) {
            BufferedResponse problemResponse = newResponse();
            try {
                ServletAnswers.problem(problemResponse, protocol.problems().render(problem,
                        request.getRequestURI()));
            } catch (IOException cannotHappen) {
                throw new UncheckedIOException("A buffer in memory does not fail", cannotHappen);
            }
            return problemResponse;
        }
    }
}
