package dev.onceonly.spring.boot.web;

import dev.onceonly.Attempt;
import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyException;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyKeyFormat;
import dev.onceonly.IdempotencyKeyReusedException;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotentResult;
import dev.onceonly.InvalidIdempotencyKeyException;
import dev.onceonly.LeaseLostException;
import dev.onceonly.OutcomeCodec;
import dev.onceonly.OutcomeUnknownException;
import dev.onceonly.RequestInProgressException;
import dev.onceonly.StoredResponse;
import dev.onceonly.http.HandlerLeftTransactionException;
import dev.onceonly.http.OwnerUnresolvableException;
import dev.onceonly.http.Owners;
import dev.onceonly.http.Refusal;
import dev.onceonly.http.RequestBodyTooLargeException;
import dev.onceonly.http.RequestOutcome;
import dev.onceonly.http.ResponseTooLargeException;
import dev.onceonly.http.ServerBusyException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.ErrorResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.util.context.ContextView;

/**
 * The {@code Idempotency-Key} protocol for WebFlux: the same steps, refusals and problems as the Spring MVC filter
 * ({@link IdempotencyKeyFilter}).
 *
 * <p>The store blocks, so it is never called on the server's event loop: an outcome this process remembers is
 * replayed right there from memory, and everything else (the claim, the handler's run, the completion, a replay from
 * the store or Redis) runs on a scheduler of OnceOnly's own, whose threads may block. In transactional mode the
 * handler is subscribed on that thread, inside the transaction: its blocking database calls join it as long as it
 * does not move them to another scheduler. The response is held back until the outcome is settled (committed), and
 * the Reactor context of the request (its security context) goes along.
 */
public final class ReactiveIdempotencyKeyFilter implements WebFilter, Ordered {

    /** The exchange attribute the running {@link dev.onceonly.Attempt} is under. */
    static final String ATTEMPT_ATTRIBUTE = FilterArgumentResolver.ATTEMPT_ATTRIBUTE;

    private static final Logger log = LoggerFactory.getLogger(ReactiveIdempotencyKeyFilter.class);

    private final ReactiveIdempotentEndpoints endpoints;
    private final IdempotencyKeyFormat keyFormat;
    private final String headerName;
    private final ReactiveIdempotencyOwnerResolver owners;
    private final boolean allowAnonymous;
    private final ResponseSnapshots snapshots;
    private final ProblemResponses problems;
    private final long maxRequestBody;
    private final long maxBufferedResponse;
    private final IdempotencyProtocol protocol;
    private final Scheduler scheduler;
    private final int order;

    ReactiveIdempotencyKeyFilter(ReactiveIdempotentEndpoints endpoints, IdempotencyKeyFormat keyFormat,
            String headerName, ReactiveIdempotencyOwnerResolver owners, boolean allowAnonymous,
            ResponseSnapshots snapshots, ProblemResponses problems, long maxRequestBody, long maxBufferedResponse,
            List<IdempotencyListener> listeners, Scheduler scheduler, int order) {
        this.endpoints = endpoints;
        this.keyFormat = keyFormat;
        this.headerName = headerName;
        this.owners = owners;
        this.allowAnonymous = allowAnonymous;
        this.snapshots = snapshots;
        this.problems = problems;
        this.maxRequestBody = maxRequestBody;
        this.maxBufferedResponse = maxBufferedResponse;
        this.protocol = new IdempotencyProtocol(listeners);
        this.scheduler = scheduler;
        this.order = order;
    }

    @Override
    public int getOrder() {
        return order;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        return endpoints.match(exchange).map(Optional::of).defaultIfEmpty(Optional.empty())
                .flatMap(match -> match.isPresent() ? handle(match.get(), exchange, chain) : chain.filter(exchange));
    }

    private Mono<Void> handle(EndpointMatch match, ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        IdempotentEndpoint endpoint = match.endpoint();
        List<String> keys = request.getHeaders().getOrEmpty(headerName);
        String operation = IdempotencyProtocol.operationOf(match, request.getMethod().name(), keys);
        if (operation == null) {
            return chain.filter(exchange);
        }
        IdempotencyKey key;
        try {
            key = keyFormat.parseHeader(keys);
        } catch (InvalidIdempotencyKeyException e) {
            return refuse(e, operation, false, exchange);
        }
        // Refusals of the request itself, before anything ran; the handler's own exceptions are not among them.
        return owner(exchange).zipWith(body(request)).map(ownerAndBody -> {
            byte[] body = ownerAndBody.getT2();
            RequestEncoding encoding = RequestEncoding.of(request.getHeaders().getOrEmpty(HttpHeaders.CONTENT_ENCODING),
                    request.getHeaders().getFirst(HttpHeaders.CONTENT_TYPE));
            Fingerprint fingerprint = endpoint.fingerprint(request.getMethod().name(), match.route(),
                    request.getPath().pathWithinApplication().value(), request.getURI().getRawQuery(),
                    request.getHeaders()::getOrEmpty, encoding, body);
            return new Prepared(IdempotencyScope.of(ownerAndBody.getT1(), operation, key), fingerprint, body,
                    encoding.isForm());
        }).onErrorMap(IdempotencyException.class, RefusedRequest::new)
                .flatMap(prepared -> execute(endpoint, prepared.scope(), prepared.fingerprint(),
                        ReplayedBodyRequest.exchange(exchange, prepared.body(), prepared.form(), maxRequestBody),
                        chain))
                .onErrorResume(RefusedRequest.class, refused -> refuse(refused.refusal, operation, false, exchange));
    }

    /** A request ready to execute: its scope, its fingerprint and the body they were read from. */
    private record Prepared(IdempotencyScope scope, Fingerprint fingerprint, byte[] body, boolean form) {
    }

    /** Carries a refusal of the request past the execution's own error handling. */
    private static final class RefusedRequest extends RuntimeException {

        final IdempotencyException refusal;

        RefusedRequest(IdempotencyException refusal) {
            super(null, refusal, false, false);
            this.refusal = refusal;
        }
    }

    /** The owner, checked by the servlet filter's rules; a resolver's failure is told by its type alone. */
    private Mono<String> owner(ServerWebExchange exchange) {
        return Mono.defer(() -> owners.resolveOwner(exchange))
                .map(Optional::of).defaultIfEmpty(Optional.empty())
                .onErrorMap(e -> !(e instanceof IdempotencyException), e -> {
                    // Only the type: a resolver that queries a database fails with the database's text.
                    log.warn("The ReactiveIdempotencyOwnerResolver failed for {} {} with {}",
                            exchange.getRequest().getMethod(), exchange.getRequest().getPath(),
                            e.getClass().getName());
                    return OwnerUnresolvableException.resolverFailed();
                })
                .map(owner -> Owners.checked(owner.orElse(null), allowAnonymous));
    }

    private Mono<byte[]> body(ServerHttpRequest request) {
        int limit = (int) Math.min(maxRequestBody, Integer.MAX_VALUE - 8);
        return DataBufferUtils.join(request.getBody(), limit).map(buffer -> {
            try {
                byte[] bytes = new byte[buffer.readableByteCount()];
                buffer.read(bytes);
                return bytes;
            } finally {
                DataBufferUtils.release(buffer);
            }
        }).defaultIfEmpty(new byte[0])
                .onErrorMap(DataBufferLimitException.class, e -> RequestBodyTooLargeException.of(maxRequestBody));
    }

    private Mono<Void> execute(IdempotentEndpoint endpoint, IdempotencyScope scope, Fingerprint fingerprint,
            ServerWebExchange exchange, WebFilterChain chain) {
        String operation = scope.operation();
        OutcomeCodec<StoredResponse> codec = snapshots.codec(operation);
        Optional<IdempotentResult<StoredResponse>> remembered;
        try {
            remembered = endpoint.engine().replayFromMemory(scope, fingerprint, codec);
        } catch (IdempotencyKeyReusedException e) {
            return refuse(e, operation, false, exchange);
        }
        if (remembered.isPresent()) {
            return send(exchange, remembered.get(), null, operation);
        }
        AtomicBoolean started = new AtomicBoolean();
        // The handler's held-back response of the last attempt, and the final problem that replaced it, if any
        AtomicReference<HeldBackResponse> held = new AtomicReference<>();
        AtomicReference<ProblemResponses.Rendered> finalProblem = new AtomicReference<>();
        return awaitAttemptRunningHere(endpoint, scope)
                .then(Mono.deferContextual(context -> detached(() -> endpoint.engine().execute(scope, fingerprint,
                        codec, attempt -> {
                            started.set(true);
                            HeldBackResponse response = new HeldBackResponse(exchange.getResponse(),
                                    maxBufferedResponse);
                            held.set(response);
                            runHandler(operation, exchange.mutate().response(response).build(), chain,
                                    attempt, context, response, finalProblem);
                            return snapshots.capture(response.status(), response.contentType(),
                                    response.heldHeaders(), response.content());
                        }))))
                .flatMap(result -> send(exchange, result, held.get(), operation))
                .onErrorResume(e -> failed(e, operation, exchange, started.get(), held.get(), finalProblem.get()));
    }

    /**
     * A duplicate of an attempt running in this process waits for it here without a thread, for at most the wait,
     * so that a storm of duplicates holds none of the scheduler's threads; the engine then replays, or runs again.
     */
    private static Mono<Void> awaitAttemptRunningHere(IdempotentEndpoint endpoint, IdempotencyScope scope) {
        Duration wait = endpoint.engine().waitTimeout();
        return Mono.justOrEmpty(endpoint.engine().attemptRunningHere(scope))
                // A copy of the stage, which this wait may cancel without touching the attempt
                .flatMap(running -> Mono.fromFuture(running.toCompletableFuture(), true).timeout(wait, Mono.error(() ->
                        RequestInProgressException.of(endpoint.engine().keyStorage().stored(scope),
                                endpoint.engine().retryAfter()))))
                .then();
    }

    /**
     * Runs {@code execution} on the scheduler, detached from the request: a client that goes away cancels the
     * response, never the attempt (interrupting it could lose its outcome after it took effect).
     */
    private <T> Mono<T> detached(Callable<T> execution) {
        CompletableFuture<T> done = new CompletableFuture<>();
        try {
            scheduler.schedule(() -> {
                try {
                    done.complete(execution.call());
                } catch (Throwable e) {
                    done.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException full) {
            return Mono.error(ServerBusyException.of());
        }
        return Mono.fromFuture(done, true);
    }

    /**
     * Runs the rest of the chain for one attempt, on this thread and with the request's Reactor context: in
     * transactional mode this thread holds the transaction, which the handler's blocking calls join as long as it
     * completes here. Errors Spring answers with a status ({@link ErrorResponse}) become that response, as the
     * servlet dispatcher answers them inside the filter.
     */
    private void runHandler(String operation, ServerWebExchange attemptExchange,
            WebFilterChain chain, Attempt attempt, ContextView context, HeldBackResponse response,
            AtomicReference<ProblemResponses.Rendered> finalProblem) throws Exception {
        attemptExchange.getAttributes().put(ATTEMPT_ATTRIBUTE, attempt);
        Thread attemptThread = Thread.currentThread();
        AtomicReference<Thread> endedOn = new AtomicReference<>();
        RuntimeException failure = null;
        try {
            // Spring's chain defers each filter, so one that throws still signals its error here, on this thread.
            chain.filter(attemptExchange)
                    .onErrorResume(e -> e instanceof ErrorResponse, e -> writeErrorResponse(response, (ErrorResponse) e))
                    .then(Mono.defer(response::commit))
                    .doOnEach(signal -> {
                        if (signal.isOnComplete() || signal.isOnError()) {
                            endedOn.set(Thread.currentThread());
                        }
                    })
                    .contextWrite(context).block();
        } catch (RuntimeException e) {
            failure = e;
        }
        if (attempt.isTransactional() && endedOn.get() != attemptThread) {
            // Its work went on elsewhere, where blocking calls commit on their own: it may have taken effect outside
            // the transaction, so it must never run again for this key, whether it failed or not.
            log.error("The handler of operation={} ended on {}, not on the thread of its transaction: what it wrote "
                    + "there is not part of it. Keep its blocking calls where it is subscribed, or make the endpoint "
                    + "leased. Its key is answered with a stored 500 from now on.", operation,
                    endedOn.get() == null ? "no thread" : endedOn.get().getName());
            HandlerLeftTransactionException left = HandlerLeftTransactionException.of(operation);
            throw OutcomeUnknownException.storing(left.getMessage(),
                    finalProblem(left, attemptExchange, finalProblem));
        }
        if (failure != null) {
            Throwable cause = Exceptions.unwrap(failure);
            if (cause instanceof LeaseLostException lost) {
                throw lost;
            }
            requireWithinBound(response, attemptExchange, finalProblem);
            throw cause instanceof Exception exception ? exception : failure;
        }
        requireWithinBound(response, attemptExchange, finalProblem);
    }

    /**
     * As the servlet buffer's {@code sendError}: the error replaces what the handler wrote, and its problem carries
     * the status alone, never the exception's text (frameworks put it in the detail). The headers it asks for
     * ({@code Allow}, {@code Accept}) stay.
     */
    private Mono<Void> writeErrorResponse(HeldBackResponse response, ErrorResponse error) {
        response.resetForError();
        ProblemResponses.Rendered rendered = problems.render(ProblemDetail.forStatus(error.getStatusCode()));
        response.setStatusCode(error.getStatusCode());
        error.getHeaders().forEach((name, values) -> response.getHeaders().put(name, values));
        rendered.headers().forEach(response.getHeaders()::set);
        return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(rendered.body())));
    }

    /** As {@link IdempotencyKeyFilter}: too large is rolled back in transactional mode, final in leased mode. */
    private void requireWithinBound(HeldBackResponse response, ServerWebExchange exchange,
            AtomicReference<ProblemResponses.Rendered> finalProblem) {
        if (response.overflowed()) {
            ResponseTooLargeException tooLarge = ResponseTooLargeException.of(maxBufferedResponse);
            throw OutcomeUnknownException.unlessRolledBack(tooLarge, "the response outgrew "
                    + "onceonly.http.max-buffered-response (" + maxBufferedResponse + " bytes)",
                    finalProblem(tooLarge, exchange, finalProblem));
        }
    }

    /**
     * The outcome of a handler that may have taken effect but has no response to store: {@code problem}, to store
     * as the key's final outcome so that it never runs twice, and to send instead of the handler's response.
     */
    private StoredResponse finalProblem(IdempotencyException problem, ServerWebExchange exchange,
            AtomicReference<ProblemResponses.Rendered> finalProblem) {
        ProblemResponses.Rendered rendered = problems.render(problem, exchange.getRequest().getPath().value());
        finalProblem.set(rendered);
        Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        rendered.headers().forEach((name, value) -> headers.put(name, List.of(value)));
        return snapshots.capture(rendered.status(), rendered.headers().get(HttpHeaders.CONTENT_TYPE), headers,
                rendered.body());
    }

    private Mono<Void> failed(Throwable e, String operation, ServerWebExchange exchange, boolean started,
            @Nullable HeldBackResponse held, ProblemResponses.@Nullable Rendered finalProblem) {
        if (e instanceof OutcomeUnknownException unknown) {
            protocol.notify(operation, RequestOutcome.ERROR);
            if (finalProblem != null) {
                return write(exchange.getResponse(), finalProblem);
            }
            return held != null ? held.sendToClient() : Mono.error(unknown);
        }
        return refuse(e, operation, started, exchange);
    }

    private Mono<Void> send(ServerWebExchange exchange, IdempotentResult<StoredResponse> result,
            @Nullable HeldBackResponse held, String operation) {
        StoredResponse stored = result.value();
        log.debug("Idempotent request: operation={} replayed={} status={}", operation, result.replayed(),
                stored.status());
        if (!result.replayed() && held != null) {
            protocol.notify(operation, RequestOutcome.EXECUTED);
            return held.sendToClient();
        }
        protocol.notify(operation, RequestOutcome.REPLAYED);
        ServerHttpResponse response = exchange.getResponse();
        response.setStatusCode(HttpStatusCode.valueOf(stored.status()));
        HttpHeaders headers = response.getHeaders();
        ResponseSnapshots.replayHeaders(stored, headers::set, headers::add);
        headers.set(ResponseSnapshots.REPLAYED_HEADER, "true");
        return HeldBackResponse.write(response, stored.status(), stored.body());
    }

    /** Answers the refusal {@code failure} is, or signals it on when it is none (the handler's own). */
    private Mono<Void> refuse(Throwable failure, String operation, boolean started, ServerWebExchange exchange) {
        Refusal refusal = protocol.refusal(failure, operation, started);
        if (refusal == null) {
            return Mono.error(failure);
        }
        return write(exchange.getResponse(), problems.render(refusal.problem(),
                exchange.getRequest().getPath().value()));
    }

    private static Mono<Void> write(ServerHttpResponse response, ProblemResponses.Rendered problem) {
        response.setStatusCode(HttpStatusCode.valueOf(problem.status()));
        problem.headers().forEach(response.getHeaders()::set);
        return HeldBackResponse.write(response, problem.status(), problem.body());
    }

}
