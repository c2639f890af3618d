package dev.onceonly.spring.web.reactive;

import dev.onceonly.IdempotencyException;
import dev.onceonly.spring.web.ProblemResponses;
import dev.onceonly.spring.web.internal.IdempotencyProtocol;
import org.springframework.core.Ordered;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;
import reactor.core.publisher.Mono;

/**
 * Answers what an idempotent call of a handler threw ({@link IdempotencyProtocol#callerProblem}) with its problem, as
 * {@link dev.onceonly.spring.web.servlet.CallerProblemResolver} does on Spring MVC. An application's
 * {@code @ExceptionHandler} runs first, inside the dispatcher; this runs before Spring Boot's error handler (order
 * -1). Inside an idempotent endpoint the filter has answered such a failure already.
 */
public final class ReactiveCallerProblemHandler implements WebExceptionHandler, Ordered {

    private final ProblemResponses problems;

    public ReactiveCallerProblemHandler(ProblemResponses problems) {
        this.problems = problems;
    }

    @Override
    public Mono<Void> handle(ServerWebExchange exchange, Throwable failure) {
        IdempotencyException problem = IdempotencyProtocol.callerProblem(failure);
        ServerHttpResponse response = exchange.getResponse();
        if (problem == null || response.isCommitted()) {
            return Mono.error(failure);
        }
        return HeldBackResponse.write(response, problems.render(problem, exchange.getRequest().getPath().value()));
    }

    @Override
    public int getOrder() {
        return -2;
    }
}
