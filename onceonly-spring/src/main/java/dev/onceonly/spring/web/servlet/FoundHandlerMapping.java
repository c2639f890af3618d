package dev.onceonly.spring.web.servlet;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.HandlerExecutionChain;
import org.springframework.web.servlet.HandlerMapping;

/**
 * Hands the dispatcher the handler that {@link IdempotentEndpoints} looked up for a request to an annotated
 * endpoint, so that it is looked up once, not once by the filter and again by the dispatcher. Ordered first, it
 * answers only the request dispatch the lookup was made for, and only once; every other request goes on to the
 * dispatcher's own mappings.
 *
 * <p>The filter asks the dispatcher's mappings in the dispatcher's order, for the request as it reaches the filter:
 * the handler it found is the one whose annotation made the request idempotent, which is the one that must run.
 */
public final class FoundHandlerMapping implements HandlerMapping, Ordered {

    private static final String ATTRIBUTE = FoundHandlerMapping.class.getName() + ".found";

    /** A handler found for the request with this method and URI. */
    private record Found(String method, String uri, HandlerExecutionChain chain) {
    }

    /** Keeps {@code chain}, found for {@code request}, for the dispatcher. */
    static void remember(HttpServletRequest request, HandlerExecutionChain chain) {
        request.setAttribute(ATTRIBUTE, new Found(request.getMethod(), request.getRequestURI(), chain));
    }

    /**
     * The handler the filter found, if this is the dispatch it was found for: a filter between the two may have
     * wrapped the request with another method or path, and a forward or an error dispatch goes elsewhere.
     */
    @Override
    public @Nullable HandlerExecutionChain getHandler(HttpServletRequest request) {
        if (!(request.getAttribute(ATTRIBUTE) instanceof Found found)) {
            return null;
        }
        request.removeAttribute(ATTRIBUTE);
        return request.getDispatcherType() == DispatcherType.REQUEST && found.method().equals(request.getMethod())
                && found.uri().equals(request.getRequestURI()) ? found.chain() : null;
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
