package dev.onceonly.spring.boot.web;

import dev.onceonly.Attempt;
import org.jspecify.annotations.Nullable;
import org.springframework.core.MethodParameter;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;

/**
 * Hands an idempotent handler its {@link Attempt}, declared as a parameter: its downstream key for the systems it
 * calls and whether its lease was lost. Reads nothing of the request, so it leaves the fingerprint's query
 * parameters as they are.
 */
final class AttemptArgumentResolver implements HandlerMethodArgumentResolver {

    /** The request attribute the filter puts the running attempt under. */
    static final String ATTRIBUTE = Attempt.class.getName();

    @Override
    public boolean supportsParameter(MethodParameter parameter) {
        return parameter.getParameterType() == Attempt.class;
    }

    @Override
    public Object resolveArgument(MethodParameter parameter, @Nullable ModelAndViewContainer container,
            NativeWebRequest request, @Nullable WebDataBinderFactory binders) {
        Object attempt = request.getAttribute(ATTRIBUTE, RequestAttributes.SCOPE_REQUEST);
        if (attempt == null) {
            throw new IllegalStateException("Handler parameter of type Attempt in "
                    + parameter.getExecutable().toGenericString() + " needs an idempotent endpoint (@Idempotent or "
                    + "onceonly.http.endpoints), and a request with an Idempotency-Key");
        }
        return attempt;
    }
}
