package dev.onceonly.spring.web;

import dev.onceonly.Attempt;
import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.spring.OnceOnlySetup;
import dev.onceonly.spring.async.AsynchronousOperations;
import jakarta.servlet.http.HttpServletRequest;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationContext;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.http.server.PathContainer;
import org.springframework.web.bind.annotation.RequestMethod;
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

    /** The methods an annotated mapping that names none applies to. */
    private static final Set<String> DEFAULT_METHODS = Set.of("POST", "PATCH");

    private final ApplicationContext context;
    private final IdempotencyEngine engine;
    private final List<PathEndpoint> pathEndpoints;
    private final Map<Method, IdempotentEndpoint> annotated = new HashMap<>();
    /** The route templates of each annotated handler, which its requests' fingerprints include. */
    private final Map<Method, Set<String>> annotatedRoutePatterns = new HashMap<>();
    private ConfiguredEndpoints configured = ConfiguredEndpoints.NONE;
    /** The dispatcher's handler mappings, in its order, but for {@link FoundHandlerMapping}. */
    private List<HandlerMapping> handlerMappings = List.of();
    /** The HTTP methods annotated endpoints apply to: other requests skip the handler lookup entirely. */
    private final Set<String> annotatedMethods = new HashSet<>();
    /** The routes of annotated endpoints: a request whose path matches none skips the handler lookup too. */
    private final List<PathPattern> annotatedRoutes = new ArrayList<>();
    /** Some annotated route is not a parsed pattern (a mapping that matches with {@code AntPathMatcher}). */
    private boolean unparsedRoutes;
    /** What accepts the requests of asynchronous endpoints, looked up only if there are any. */
    private @Nullable AsynchronousOperations asynchronousOperations;

    public IdempotentEndpoints(ApplicationContext context, IdempotencyEngine engine, List<PathEndpoint> pathEndpoints) {
        this.context = context;
        this.engine = engine;
        this.pathEndpoints = List.copyOf(pathEndpoints);
    }

    @Override
    public void afterSingletonsInstantiated() {
        configured = ConfiguredEndpoints.of(pathEndpoints, engine);
        // As the dispatcher detects and orders them (DispatcherServlet.initHandlerMappings)
        handlerMappings = BeanFactoryUtils.beansOfTypeIncludingAncestors(context, HandlerMapping.class, true, false)
                .values().stream().filter(mapping -> !(mapping instanceof FoundHandlerMapping))
                .sorted(AnnotationAwareOrderComparator.INSTANCE).toList();
        List<HandlerMethodArgumentResolver> resolvers = context.getBeansOfType(RequestMappingHandlerAdapter.class)
                .values().stream().findFirst().map(RequestMappingHandlerAdapter::getArgumentResolvers)
                .orElse(List.of());
        for (RequestMappingHandlerMapping mapping : context.getBeansOfType(RequestMappingHandlerMapping.class)
                .values()) {
            mapping.getHandlerMethods().forEach((info, handler) -> {
                Idempotent idempotent = AnnotatedElementUtils.findMergedAnnotation(handler.getMethod(),
                        Idempotent.class);
                if (idempotent != null) {
                    // A mapping without methods answers every method, GET and HEAD too; only these change state.
                    Set<String> methods = info.getMethodsCondition().getMethods().isEmpty() ? DEFAULT_METHODS
                            : info.getMethodsCondition().getMethods().stream().map(RequestMethod::name)
                                    .collect(Collectors.toUnmodifiableSet());
                    if (idempotent.value().isBlank()) {
                        AnnotatedEndpoints.requireDefaultOperationsFit(AnnotatedEndpoints.where(handler.getMethod()),
                                methods, info.getPatternValues());
                    }
                    annotated.put(handler.getMethod(), endpoint(idempotent, handler, methods, resolvers));
                    annotatedRoutePatterns.put(handler.getMethod(), Set.copyOf(info.getPatternValues()));
                    annotatedMethods.addAll(methods);
                    if (info.getPathPatternsCondition() == null) {
                        unparsedRoutes = true;
                    } else {
                        annotatedRoutes.addAll(info.getPathPatternsCondition().getPatterns());
                    }
                }
            });
        }
        requireOperationsOfAsynchronousEndpoints();
        context.getBeanProvider(OnceOnlySetup.class).ifAvailable(setup -> {
            configured.reportTo(setup);
            annotated.forEach((method, endpoint) -> endpoint.reportTo(setup,
                    method.getDeclaringClass().getSimpleName() + "." + method.getName()));
        });
    }

    /**
     * An asynchronous handler answers through its {@link AcceptedRequest}: without one it would run unprotected,
     * and an {@link Attempt} or an {@code AcceptedRequest} where the filter makes none would fail every request.
     */
    private static void requireFilterArguments(String where, HandlerMethod handler, boolean asynchronous) {
        List<Class<?>> types = List.of(handler.getMethod().getParameterTypes());
        if (asynchronous && (!types.contains(AcceptedRequest.class) || types.contains(Attempt.class))) {
            throw IdempotencyConfigurationException.of(where + " asynchronous", "an asynchronous handler "
                    + "accepts its operation through an AcceptedRequest parameter and runs no attempt",
                    "Declare an AcceptedRequest parameter, answer with its accept(…), and take no Attempt");
        }
        if (!asynchronous && types.contains(AcceptedRequest.class)) {
            throw IdempotencyConfigurationException.of(where, "only an asynchronous endpoint's handler gets an "
                    + "AcceptedRequest", "Set asynchronous = true, or take an Attempt instead");
        }
    }

    /**
     * An asynchronous endpoint only accepts requests; without a worker for its operation nothing would ever run
     * them. Looked up here, not injected, so that an application without db-scheduler never loads its types.
     */
    private void requireOperationsOfAsynchronousEndpoints() {
        annotated.forEach((method, endpoint) -> {
            if (!endpoint.asynchronous()) {
                return;
            }
            String where = AnnotatedEndpoints.where(method) + " asynchronous";
            if (asynchronousOperations == null) {
                asynchronousOperations = context.getBeanProvider(AsynchronousOperations.class).getIfAvailable();
            }
            if (asynchronousOperations == null) {
                throw IdempotencyConfigurationException.of(where, "asynchronous operations are not set up",
                        "Add com.github.kagkarlsson:db-scheduler and onceonly-jdbc's store, and keep "
                                + "onceonly.enabled on");
            }
            if (!asynchronousOperations.runs(String.valueOf(endpoint.operation()))) {
                throw IdempotencyConfigurationException.of(where, "no AsynchronousOperation bean is named '"
                        + endpoint.operation() + "', so nothing would run what the endpoint accepts",
                        "Define an AsynchronousOperation bean whose name() is the operation's name");
            }
            annotated.forEach((otherMethod, twin) -> requireSameRequest(where, method, endpoint, otherMethod, twin));
        });
    }

    /**
     * A synchronous endpoint of the same operation shares the key's record with the asynchronous one: a retry in
     * the other form is the same request only if both fingerprint alike, and finds the record only if both keep it
     * as long (the worker keeps it for the application's retention).
     */
    private void requireSameRequest(String where, Method method, IdempotentEndpoint asynchronous, Method twinMethod,
            IdempotentEndpoint twin) {
        if (twin.asynchronous() || !Objects.equals(twin.operation(), asynchronous.operation())) {
            return;
        }
        String twinWhere = AnnotatedEndpoints.where(twinMethod);
        boolean sameFingerprint = twin.methods().equals(asynchronous.methods())
                && Objects.equals(annotatedRoutePatterns.get(twinMethod), annotatedRoutePatterns.get(method))
                && twin.canonicalJson().equals(asynchronous.canonicalJson())
                && twin.fingerprintHeaders().equals(asynchronous.fingerprintHeaders())
                && twin.fingerprintParameters().equals(asynchronous.fingerprintParameters());
        if (!sameFingerprint || !twin.engine().retention().equals(engine.retention())) {
            throw IdempotencyConfigurationException.of(where, "it shares operation '" + asynchronous.operation()
                    + "' with " + twinWhere + ", but they differ in HTTP methods, routes, excludedFields, "
                    + "fingerprintHeaders, the query parameters that take part, or retention, so a retry in the other "
                    + "form would be refused or run again", "Map both to the same methods and routes, give them the "
                    + "same fingerprint settings, and the synchronous one the application's retention");
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
        Map<Method, IdempotencyEngine> engines = new HashMap<>();
        annotated.forEach((method, endpoint) -> engines.put(method, endpoint.engine()));
        return Map.copyOf(engines);
    }

    private IdempotentEndpoint endpoint(Idempotent idempotent, HandlerMethod handler, Set<String> methods,
            List<HandlerMethodArgumentResolver> resolvers) {
        Method method = handler.getMethod();
        String where = AnnotatedEndpoints.where(method);
        ResolvableType asynchronous = HandlerSignature.asynchronousReturnType(handler);
        if (asynchronous != null) {
            throw IdempotencyConfigurationException.of(where, "the handler returns " + asynchronous + "; an "
                    + "idempotent handler must answer synchronously, with a declared type, so that its outcome "
                    + "is known when it is stored");
        }
        requireFilterArguments(where, handler, idempotent.asynchronous());
        return AnnotatedEndpoints.fromAnnotation(engine, idempotent, where, methods,
                HandlerSignature.boundQueryParameters(handler, resolvers));
    }

    /** The endpoint {@code request} goes to, or {@code null} if it is not idempotent. */
    @Nullable EndpointMatch match(HttpServletRequest request) {
        if (!configured.isEmpty()) {
            PathContainer path;
            try {
                path = PathContainer.parsePath(request.getRequestURI().substring(request.getContextPath().length()));
            } catch (IllegalArgumentException undecodable) {
                // No pattern can match a path that does not decode; the dispatcher answers it.
                return annotatedMethods.contains(request.getMethod()) ? matchHandler(request) : null;
            }
            EndpointMatch match = configured.match(request.getMethod(), path);
            if (match != null) {
                return match;
            }
        }
        return annotatedMethods.contains(request.getMethod()) ? matchHandler(request) : null;
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
                    EndpointMatch match = chain.getHandler() instanceof HandlerMethod handler
                            ? match(request, handler) : null;
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

    private @Nullable EndpointMatch match(HttpServletRequest request, HandlerMethod handler) {
        IdempotentEndpoint endpoint = annotated.get(handler.getMethod());
        if (endpoint == null || !endpoint.methods().contains(request.getMethod())) {
            return null;
        }
        Object route = request.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
        return new EndpointMatch(endpoint, String.valueOf(route));
    }
}
