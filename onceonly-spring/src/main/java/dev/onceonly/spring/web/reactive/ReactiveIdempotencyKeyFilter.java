package dev.onceonly.spring.web.reactive;

import dev.onceonly.Attempt;
import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyException;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyKeyFormat;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.InvalidIdempotencyKeyException;
import dev.onceonly.RequestInProgressException;
import dev.onceonly.StoredResponse;
import dev.onceonly.http.HandlerLeftTransactionException;
import dev.onceonly.http.Owners;
import dev.onceonly.http.RequestBodyTooLargeException;
import dev.onceonly.http.ServerBusyException;
import dev.onceonly.spring.web.IdempotencyListener;
import dev.onceonly.spring.web.ProblemResponses;
import dev.onceonly.spring.web.ReactiveIdempotencyOwnerResolver;
import dev.onceonly.spring.web.ResponseSnapshots;
import dev.onceonly.spring.web.internal.EndpointMatch;
import dev.onceonly.spring.web.internal.IdempotencyProtocol;
import dev.onceonly.spring.web.internal.IdempotencyProtocol.Answer;
import dev.onceonly.spring.web.internal.IdempotentEndpoint;
import dev.onceonly.spring.web.internal.RequestEncoding;
import dev.onceonly.spring.web.internal.StoredResponses;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
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
 * ({@link dev.onceonly.spring.web.servlet.IdempotencyKeyFilter}).
 *
 * <p>The store blocks, so it is never called on the server's event loop: an outcome this process remembers is
 * replayed right there from memory, and everything else (the claim, the handler's run, the completion, a replay from
 * the store or Redis) runs on a scheduler of OnceOnly's own, whose threads may block. In transactional mode the
 * handler is subscribed on that thread, inside the transaction: its blocking database calls join it as long as it
 * does not move them to another scheduler. The response is held back until the outcome is settled (committed), and
 * the Reactor context of the request (its security context) goes along.
 */
public final class ReactiveIdempotencyKeyFilter implements WebFilter, Ordered {

    private static final Logger log = LoggerFactory.getLogger(ReactiveIdempotencyKeyFilter.class);

    private final ReactiveIdempotentEndpoints endpoints;
    private final ReactiveIdempotencyOwnerResolver owners;
    private final boolean allowAnonymous;
    private final IdempotencyProtocol protocol;
    private final Scheduler scheduler;
    private final int order;

    public ReactiveIdempotencyKeyFilter(ReactiveIdempotentEndpoints endpoints, IdempotencyKeyFormat keyFormat,
            String headerName, ReactiveIdempotencyOwnerResolver owners, boolean allowAnonymous,
            ResponseSnapshots snapshots, ProblemResponses problems, long maxRequestBody, long maxBufferedResponse,
            List<IdempotencyListener> listeners, Scheduler scheduler, int order) {
        this.endpoints = endpoints;
        this.owners = owners;
        this.allowAnonymous = allowAnonymous;
        this.protocol = new IdempotencyProtocol(keyFormat, headerName, snapshots, problems, maxRequestBody,
                maxBufferedResponse, listeners);
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
        List<String> keys = request.getHeaders().getOrEmpty(protocol.headerName());
        String operation = IdempotencyProtocol.operationOf(match, request.getMethod().name(), keys);
        if (operation == null) {
            return chain.filter(exchange);
        }
        IdempotencyKey key;
        try {
            key = protocol.key(keys);
        } catch (InvalidIdempotencyKeyException e) {
            return refuse(e, operation, exchange);
        }
        return owner(exchange).zipWith(body(request)).map(ownerAndBody -> {
            byte[] body = ownerAndBody.getT2();
            RequestEncoding encoding = RequestEncoding.of(request.getHeaders().getOrEmpty(HttpHeaders.CONTENT_ENCODING),
                    request.getHeaders().getFirst(HttpHeaders.CONTENT_TYPE));
            Fingerprint fingerprint = endpoint.fingerprint(request.getMethod().name(), match.route(),
                    request.getPath().pathWithinApplication().value(), request.getURI().getRawQuery(),
                    request.getHeaders()::getOrEmpty, encoding, body);
            return execute(endpoint, IdempotencyScope.of(ownerAndBody.getT1(), operation, key), fingerprint,
                    ReplayedBodyRequest.exchange(exchange, body, encoding.isForm(), protocol.maxRequestBody()), chain);
        })
                // Refusals of the request itself, before anything ran: the handler's own failures are signalled
                // later, by the execution this made
                .onErrorResume(IdempotencyException.class, refused -> Mono.just(refuse(refused, operation, exchange)))
                .flatMap(execution -> execution);
    }

    /** The owner, checked by the servlet filter's rules; a resolver's failure is told by its type alone. */
    private Mono<String> owner(ServerWebExchange exchange) {
        return Mono.defer(() -> owners.resolveOwner(exchange))
                .map(Optional::of).defaultIfEmpty(Optional.empty())
                .onErrorMap(e -> !(e instanceof IdempotencyException), e -> Owners.resolverFailed(
                        "ReactiveIdempotencyOwnerResolver", exchange.getRequest().getMethod() + " "
                                + exchange.getRequest().getPath(), e))
                .map(owner -> Owners.checked(owner.orElse(null), allowAnonymous));
    }

    private Mono<byte[]> body(ServerHttpRequest request) {
        long maxRequestBody = protocol.maxRequestBody();
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
        Answer<HeldBackResponse> remembered = protocol.remembered(endpoint, scope, fingerprint);
        if (remembered != null) {
            return answer(exchange, remembered);
        }
        return awaitAttemptRunningHere(endpoint, scope)
                .then(Mono.deferContextual(context -> detached(() -> protocol.execute(endpoint, scope, fingerprint,
                        new ReactiveHandler(exchange, chain, context)))))
                // Nothing ran: a duplicate that waited too long here, or a scheduler too busy to take the attempt
                .onErrorResume(e -> Mono.just(protocol.answerTo(e, scope.operation(), false)))
                .flatMap(answer -> answer(exchange, answer));
    }

    private Mono<Void> answer(ServerWebExchange exchange, Answer<HeldBackResponse> answer) {
        return switch (answer) {
            case Answer.Send<HeldBackResponse> send -> send.response().sendToClient();
            case Answer.Replay<HeldBackResponse> replay -> replay(exchange.getResponse(), replay.stored());
            case Answer.Refuse<HeldBackResponse> refuse -> HeldBackResponse.write(exchange.getResponse(),
                    protocol.problems().render(refuse.refusal().problem(), exchange.getRequest().getPath().value()));
            case Answer.Fail<HeldBackResponse> fail -> Mono.error(fail.failure());
        };
    }

    /** Answers the refusal {@code failure} is, before anything ran, or signals it on when it is none. */
    private Mono<Void> refuse(Throwable failure, String operation, ServerWebExchange exchange) {
        return answer(exchange, protocol.answerTo(failure, operation, false));
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
     * Runs the rest of the chain for each attempt, on the attempt's thread and with the request's Reactor context: in
     * transactional mode this thread holds the transaction, which the handler's blocking calls join as long as it
     * completes here. Errors Spring answers with a status ({@link ErrorResponse}) become that response, as the
     * servlet dispatcher answers them inside the filter.
     */
    private final class ReactiveHandler implements IdempotencyProtocol.Handler<HeldBackResponse> {

        private final ServerWebExchange exchange;
        private final WebFilterChain chain;
        private final ContextView context;
        /** The thread the last run's handler ended on */
        private volatile @Nullable Thread endedOn;

        ReactiveHandler(ServerWebExchange exchange, WebFilterChain chain, ContextView context) {
            this.exchange = exchange;
            this.chain = chain;
            this.context = context;
        }

        @Override
        public HeldBackResponse newResponse() {
            return new HeldBackResponse(exchange.getResponse(), protocol.maxBufferedResponse());
        }

        @Override
        public void run(Attempt attempt, HeldBackResponse response) throws Exception {
            ServerWebExchange attemptExchange = exchange.mutate().response(response).build();
            attemptExchange.getAttributes().put(IdempotencyProtocol.ATTEMPT_ATTRIBUTE, attempt);
            endedOn = null;
            try {
                // Spring's chain defers each filter, so one that throws still signals its error here, on this thread.
                chain.filter(attemptExchange)
                        .onErrorResume(e -> e instanceof ErrorResponse,
                                e -> writeErrorResponse(response, (ErrorResponse) e))
                        .then(Mono.defer(response::commit))
                        .doOnEach(signal -> {
                            if (signal.isOnComplete() || signal.isOnError()) {
                                endedOn = Thread.currentThread();
                            }
                        })
                        .contextWrite(context).block();
            } catch (RuntimeException e) {
                throw Exceptions.unwrap(e) instanceof Exception cause ? cause : e;
            }
        }

        /**
         * A transactional handler whose work went on elsewhere, where blocking calls commit on their own, may have
         * taken effect outside the transaction: it must never run again for this key, whether it failed or not.
         */
        @Override
        public @Nullable IdempotencyException escaped(Attempt attempt, HeldBackResponse response) {
            Thread ended = endedOn;
            if (!attempt.isTransactional() || ended == Thread.currentThread()) {
                return null;
            }
            String operation = attempt.scope().operation();
            log.error("The handler of operation={} ended on {}, not on the thread of its transaction: what it wrote "
                    + "there is not part of it. Keep its blocking calls where it is subscribed, or make the endpoint "
                    + "leased. Its key is answered with a stored 500 from now on.", operation,
                    ended == null ? "no thread" : ended.getName());
            return HandlerLeftTransactionException.of(operation);
        }

        @Override
        public HeldBackResponse problemResponse(IdempotencyException problem) {
            ProblemResponses.Rendered rendered = protocol.problems().render(problem,
                    exchange.getRequest().getPath().value());
            HeldBackResponse response = newResponse();
            response.setStatusCode(HttpStatusCode.valueOf(rendered.status()));
            rendered.headers().forEach(response.getHeaders()::set);
            response.writeWith(Mono.just(response.bufferFactory().wrap(rendered.body()))).block();
            return response;
        }
    }

    /**
     * As the servlet buffer's {@code sendError}: the error replaces what the handler wrote, and its problem carries
     * the status alone, never the exception's text (frameworks put it in the detail). The headers it asks for
     * ({@code Allow}, {@code Accept}) stay.
     */
    private Mono<Void> writeErrorResponse(HeldBackResponse response, ErrorResponse error) {
        response.resetForError();
        ProblemResponses.Rendered rendered = protocol.problems().render(ProblemDetail.forStatus(
                error.getStatusCode()));
        response.setStatusCode(error.getStatusCode());
        error.getHeaders().forEach((name, values) -> response.getHeaders().put(name, values));
        rendered.headers().forEach(response.getHeaders()::set);
        return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(rendered.body())));
    }

    /** Writes a stored outcome, marked as replayed. */
    private static Mono<Void> replay(ServerHttpResponse response, StoredResponse stored) {
        response.setStatusCode(HttpStatusCode.valueOf(stored.status()));
        HttpHeaders headers = response.getHeaders();
        StoredResponses.replayHeaders(stored, headers::set, headers::add);
        return HeldBackResponse.write(response, stored.status(), stored.body());
    }

}
