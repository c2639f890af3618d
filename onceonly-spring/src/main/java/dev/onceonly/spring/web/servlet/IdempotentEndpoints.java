package dev.onceonly.spring.web.servlet;

import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.spring.async.AsynchronousOperations;
import dev.onceonly.spring.web.Idempotent;
import dev.onceonly.spring.web.PathEndpoint;
import dev.onceonly.spring.web.internal.EndpointCatalog;
import dev.onceonly.spring.web.internal.EndpointMatch;
import jakarta.servlet.http.HttpServletRequest;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationContext;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.http.server.PathContainer;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.servlet.HandlerExecutionChain;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.util.ServletRequestPathUtils;
import org.springframework.web.util.pattern.PathPattern;

/**
 * Finds the idempotent endpoint a request goes to: a configured path pattern, or a handler method annotated with
 * {@link Idempotent}. Every endpoint is built, and every annotation checked, when the application starts.
 */
public final class IdempotentEndpoints implements SmartInitializingSingleton {

    private final ApplicationContext context;
    private final EndpointCatalog catalog;
    /** The dispatcher's argument resolvers, which tell what of the query string a handler reads. */
    private List<HandlerMethodArgumentResolver> resolvers = List.of();
    /** The dispatcher's handler mappings, in its order, but for {@link FoundHandlerMapping}. */
    private List<HandlerMapping> handlerMappings = List.of();
    /** The routes of annotated endpoints: a request whose path matches none skips the handler lookup. */
    private final List<PathPattern> annotatedRoutes = new ArrayList<>();
    /** Some annotated route is not a parsed pattern (a mapping that matches with {@code AntPathMatcher}). */
    private boolean unparsedRoutes;
    /** What accepts the requests of asynchronous endpoints, if any are. */
    private @Nullable AsynchronousOperations asynchronousOperations;

    public IdempotentEndpoints(ApplicationContext context, IdempotencyEngine engine, List<PathEndpoint> pathEndpoints) {
        this.context = context;
        this.catalog = new EndpointCatalog(engine, pathEndpoints, new MvcHandlers());
    }

    @Override
    public void afterSingletonsInstantiated() {
        catalog.configure();
        // As the dispatcher detects and orders them (DispatcherServlet.initHandlerMappings)
        handlerMappings = BeanFactoryUtils.beansOfTypeIncludingAncestors(context, HandlerMapping.class, true, false)
                .values().stream().filter(mapping -> !(mapping instanceof FoundHandlerMapping))
                .sorted(AnnotationAwareOrderComparator.INSTANCE).toList();
        resolvers = context.getBeansOfType(RequestMappingHandlerAdapter.class).values().stream().findFirst()
                .map(RequestMappingHandlerAdapter::getArgumentResolvers).orElse(List.of());
        for (RequestMappingHandlerMapping mapping : context.getBeansOfType(RequestMappingHandlerMapping.class)
                .values()) {
            mapping.getHandlerMethods().forEach((info, handler) -> {
                if (catalog.add(handler, info.getMethodsCondition().getMethods(), info.getPatternValues()) == null) {
                    return;
                }
                if (info.getPathPatternsCondition() == null) {
                    unparsedRoutes = true;
                } else {
                    annotatedRoutes.addAll(info.getPathPatternsCondition().getPatterns());
                }
            });
        }
        asynchronousOperations = catalog.asynchronousOperations(context);
        catalog.reportTo(context);
    }

    /** What Spring MVC reads of an annotated handler's signature. */
    private final class MvcHandlers implements EndpointCatalog.Transport {

        @Override
        public void check(String where, HandlerMethod handler, Idempotent idempotent) {
            ResolvableType asynchronous = HandlerSignature.asynchronousReturnType(handler);
            if (asynchronous != null) {
                throw IdempotencyConfigurationException.of(where, "the handler returns " + asynchronous + "; an "
                        + "idempotent handler must answer synchronously, with a declared type, so that its outcome "
                        + "is known when it is stored");
            }
            EndpointCatalog.requireFilterArguments(where, handler, idempotent.asynchronous());
        }

        @Override
        public Set<String> boundQueryParameters(HandlerMethod handler) {
            return HandlerSignature.boundQueryParameters(handler, resolvers);
        }
    }

    /**
     * What accepts the requests of asynchronous endpoints.
     *
     * @throws IllegalStateException if no endpoint is asynchronous
     */
    AsynchronousOperations asynchronousOperations() {
        if (asynchronousOperations == null) {
            throw new IllegalStateException("No endpoint is asynchronous");
        }
        return asynchronousOperations;
    }

    /** The engine each annotated handler method runs on: its mode, wait and retention. */
    public Map<Method, IdempotencyEngine> annotatedEngines() {
        return catalog.engines();
    }

    /** The endpoint {@code request} goes to, or {@code null} if it is not idempotent. */
    @Nullable EndpointMatch match(HttpServletRequest request) {
        EndpointMatch configured = catalog.hasConfigured() ? configured(request) : null;
        if (configured != null) {
            return configured;
        }
        return catalog.applyTo(request.getMethod()) ? matchHandler(request) : null;
    }

    private @Nullable EndpointMatch configured(HttpServletRequest request) {
        try {
            return catalog.configured(request.getMethod(),
                    PathContainer.parsePath(request.getRequestURI().substring(request.getContextPath().length())));
        } catch (IllegalArgumentException undecodable) {
            // No pattern can match a path that does not decode; the dispatcher answers it.
            return null;
        }
    }

    /**
     * Asks the dispatcher's mappings, in its order, for the request's handler. For an idempotent one, what they
     * found is kept for the dispatcher ({@link FoundHandlerMapping}), which then need not look it up again: it is
     * the handler whose annotation made the request idempotent. Other requests are looked up again by the
     * dispatcher, as filters ordered after this one leave them (a wrapper of theirs, a header they change).
     */
    private @Nullable EndpointMatch matchHandler(HttpServletRequest request) {
        Object previousPath = request.getAttribute(ServletRequestPathUtils.PATH_ATTRIBUTE);
        try {
            PathContainer path = ServletRequestPathUtils.parseAndCache(request).pathWithinApplication();
            if (!unparsedRoutes && annotatedRoutes.stream().noneMatch(route -> route.matches(path))) {
                return null; // whatever handler the dispatcher finds, it is not an annotated one
            }
            for (HandlerMapping mapping : handlerMappings) {
                HandlerExecutionChain chain = mapping.getHandler(request);
                if (chain != null) {
                    EndpointMatch match = catalog.match(chain.getHandler(), request.getMethod(),
                            request.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE));
                    if (match != null) {
                        FoundHandlerMapping.remember(request, chain);
                    }
                    return match;
                }
            }
            return null;
        } catch (Exception noHandler) {
            // No handler, wrong method or media type: the dispatcher answers those; nothing here is idempotent.
            return null;
        } finally {
            request.setAttribute(ServletRequestPathUtils.PATH_ATTRIBUTE, previousPath);
        }
    }
}
