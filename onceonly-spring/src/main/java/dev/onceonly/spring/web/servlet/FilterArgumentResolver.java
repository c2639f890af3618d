package dev.onceonly.spring.web.servlet;

import dev.onceonly.Attempt;
import dev.onceonly.spring.web.AcceptedRequest;
import dev.onceonly.spring.web.internal.Acceptance;
import dev.onceonly.spring.web.internal.IdempotencyProtocol;
import org.jspecify.annotations.Nullable;
import org.springframework.core.MethodParameter;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;

/**
 * Hands a handler, declared as a parameter, what the {@code Idempotency-Key} filter made for its request: an
 * idempotent handler's {@link Attempt} (its downstream key for the systems it calls, whether its lease was lost),
 * an asynchronous one's {@link AcceptedRequest}. Reads nothing of the request, so it leaves the fingerprint's query
 * parameters as they are.
 */
public final class FilterArgumentResolver implements HandlerMethodArgumentResolver {

    @Override
    public boolean supportsParameter(MethodParameter parameter) {
        return parameter.getParameterType() == Attempt.class || parameter.getParameterType() == AcceptedRequest.class;
    }

    @Override
    public Object resolveArgument(MethodParameter parameter, @Nullable ModelAndViewContainer container,
            NativeWebRequest request, @Nullable WebDataBinderFactory binders) {
        boolean attempt = parameter.getParameterType() == Attempt.class;
        Object value = request.getAttribute(attempt ? IdempotencyProtocol.ATTEMPT_ATTRIBUTE : Acceptance.ATTRIBUTE,
                RequestAttributes.SCOPE_REQUEST);
        if (value == null) {
            throw IdempotencyProtocol.missingArgument(parameter);
        }
        return value;
    }
}
