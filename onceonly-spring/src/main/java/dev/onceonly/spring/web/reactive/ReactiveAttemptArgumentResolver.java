package dev.onceonly.spring.web.reactive;

import dev.onceonly.Attempt;
import dev.onceonly.spring.web.internal.IdempotencyProtocol;
import org.springframework.core.MethodParameter;
import org.springframework.web.reactive.BindingContext;
import org.springframework.web.reactive.result.method.SyncHandlerMethodArgumentResolver;
import org.springframework.web.server.ServerWebExchange;

/** Hands an idempotent WebFlux handler its {@link Attempt}, as the MVC filter's argument resolver does. */
public final class ReactiveAttemptArgumentResolver implements SyncHandlerMethodArgumentResolver {

    @Override
    public boolean supportsParameter(MethodParameter parameter) {
        return parameter.getParameterType() == Attempt.class;
    }

    @Override
    public Object resolveArgumentValue(MethodParameter parameter, BindingContext context,
            ServerWebExchange exchange) {
        Object attempt = exchange.getAttribute(IdempotencyProtocol.ATTEMPT_ATTRIBUTE);
        if (attempt == null) {
            throw IdempotencyProtocol.missingArgument(parameter);
        }
        return attempt;
    }
}
