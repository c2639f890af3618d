package dev.onceonly.spring.boot.web;

import dev.onceonly.CanonicalJson;
import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyEngineBuilder;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.OutcomePolicy.Decision;
import dev.onceonly.spring.boot.AnnotatedTimings;
import dev.onceonly.spring.boot.OnceOnlyProperties;
import jakarta.servlet.http.HttpServletRequest;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationContext;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.http.server.PathContainer;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.servlet.HandlerExecutionChain;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.util.ServletRequestPathUtils;

/**
 * Finds the idempotent endpoint a request goes to: a configured path pattern, or a handler method annotated with
 * {@link Idempotent}. Every endpoint is built, and every annotation checked, when the application starts.
 */
public final class IdempotentEndpoints implements SmartInitializingSingleton {

    /** A request matched to an endpoint. */
    record Match(IdempotentEndpoint endpoint, String route) {
    }

    /** The methods an annotated mapping that names none applies to. */
    private static final Set<String> DEFAULT_METHODS = Set.of("POST", "PATCH");

    private final ApplicationContext context;
    private final IdempotencyEngine engine;
    private final OnceOnlyProperties properties;
    private final Map<Method, IdempotentEndpoint> annotated = new HashMap<>();
    private ConfiguredEndpoints configured = ConfiguredEndpoints.NONE;
    private final List<RequestMappingHandlerMapping> mappings = new ArrayList<>();
    /** The HTTP methods annotated endpoints apply to: other requests skip the handler lookup entirely. */
    private final Set<String> annotatedMethods = new HashSet<>();

    public IdempotentEndpoints(ApplicationContext context, IdempotencyEngine engine, OnceOnlyProperties properties) {
        this.context = context;
        this.engine = engine;
        this.properties = properties;
    }

    @Override
    public void afterSingletonsInstantiated() {
        configured = ConfiguredEndpoints.of(properties, engine);
        mappings.addAll(context.getBeansOfType(RequestMappingHandlerMapping.class).values());
        List<HandlerMethodArgumentResolver> resolvers = context.getBeansOfType(RequestMappingHandlerAdapter.class)
                .values().stream().findFirst().map(RequestMappingHandlerAdapter::getArgumentResolvers)
                .orElse(List.of());
        for (RequestMappingHandlerMapping mapping : mappings) {
            mapping.getHandlerMethods().forEach((info, handler) -> {
                Idempotent idempotent = AnnotatedElementUtils.findMergedAnnotation(handler.getMethod(),
                        Idempotent.class);
                if (idempotent != null) {
                    // A mapping without methods answers every method, GET and HEAD too; only these change state.
                    Set<String> methods = info.getMethodsCondition().getMethods().isEmpty() ? DEFAULT_METHODS
                            : info.getMethodsCondition().getMethods().stream().map(RequestMethod::name)
                                    .collect(Collectors.toUnmodifiableSet());
                    if (idempotent.value().isBlank()) {
                        requireDefaultOperationsFit(where(handler.getMethod()), methods, info.getPatternValues());
                    }
                    annotated.put(handler.getMethod(), endpoint(idempotent, handler, methods, resolvers));
                    annotatedMethods.addAll(methods);
                }
            });
        }
    }

    /** The endpoints built from annotations, by handler method. */
    public Map<Method, IdempotentEndpoint> annotatedEndpoints() {
        return Map.copyOf(annotated);
    }

    /**
     * A default operation name (method and route template) must fit the store's operation column, or every request
     * to the endpoint would fail.
     */
    static void requireDefaultOperationsFit(String where, Collection<String> methods,
            Collection<String> routes) {
        for (String method : methods) {
            for (String route : routes) {
                int length = (method + " " + route).length();
                if (length > IdempotencyScope.MAX_NAME_LENGTH) {
                    throw IdempotencyConfigurationException.of(where, "the default operation name (method and "
                            + "route) is " + length + " characters long, more than the "
                            + IdempotencyScope.MAX_NAME_LENGTH + " a store holds; give the operation a name");
                }
            }
        }
    }

    static String where(Method method) {
        return "@Idempotent on " + method.getDeclaringClass().getSimpleName() + "." + method.getName();
    }

    private IdempotentEndpoint endpoint(Idempotent idempotent, HandlerMethod handler, Set<String> methods,
            List<HandlerMethodArgumentResolver> resolvers) {
        Method method = handler.getMethod();
        String where = where(method);
        ResolvableType asynchronous = HandlerSignature.asynchronousReturnType(handler);
        if (asynchronous != null) {
            throw IdempotencyConfigurationException.of(where, "the handler returns " + asynchronous + "; an "
                    + "idempotent handler must answer synchronously, with a declared type, so that its outcome "
                    + "is known when it is stored");
        }
        return fromAnnotation(engine, idempotent, where, methods,
                HandlerSignature.boundQueryParameters(handler, resolvers));
    }

    /**
     * The endpoint an annotated handler is, on any server.
     *
     * @param where the annotation and its method, for the message of a refusal
     * @param bound the query parameters the handler binds; {@value IdempotentEndpoint#ALL_PARAMETERS} if it may
     *     read any
     * @throws IdempotencyConfigurationException naming the attribute that is wrong
     */
    static IdempotentEndpoint fromAnnotation(IdempotencyEngine engine, Idempotent idempotent, String where,
            Set<String> methods, Set<String> bound) {
        if (idempotent.value().length() > IdempotencyScope.MAX_NAME_LENGTH) {
            throw IdempotencyConfigurationException.of(where, "the operation name is longer than "
                    + IdempotencyScope.MAX_NAME_LENGTH + " characters");
        }
        IdempotencyEngineBuilder variant = engine.toBuilder();
        new AnnotatedTimings(idempotent.waitTimeout(), idempotent.retention(), idempotent.failedRetention(),
                idempotent.abandonedRetention()).applyTo(variant, engine, where);
        Map<Integer, Decision> overrides = new HashMap<>();
        for (int status : idempotent.retryableStatuses()) {
            if (status < 400 || status > 599) {
                // Rolling back a success would let the client see a success that never took effect.
                throw IdempotencyConfigurationException.of(where + " retryableStatuses", status + " is not a 4xx or "
                        + "5xx status");
            }
            overrides.put(status, Decision.RETRYABLE);
        }
        for (int status : idempotent.finalStatuses()) {
            if (status < 400 || status > 599 || overrides.containsKey(status)) {
                throw IdempotencyConfigurationException.of(where + " finalStatuses", status + " is not a 4xx or 5xx "
                        + "status, or is also listed as retryable");
            }
            overrides.put(status, Decision.FAILED_FINAL);
        }
        if (!overrides.isEmpty()) {
            variant.outcomePolicy(engine.outcomePolicy().overriding(overrides));
        }
        if (idempotent.mode() == IdempotencyMode.JOINED) {
            throw IdempotencyConfigurationException.of(where + " mode", "joined mode runs in the caller's "
                    + "transaction, and a request has none when OnceOnly handles it (it answers after the commit)",
                    "Use auto, transactional or leased on endpoints");
        }
        if (idempotent.mode() != IdempotencyMode.AUTO) {
            variant.mode(idempotent.mode());
        }
        IdempotencyEngine endpointEngine;
        try {
            endpointEngine = variant.build();
        } catch (IdempotencyConfigurationException e) {
            throw e.renamed(where + " mode");
        }
        String operation = idempotent.value().isBlank() ? null : idempotent.value();
        Set<String> parameters = new TreeSet<>(List.of(idempotent.fingerprintParameters()));
        if (parameters.isEmpty()) {
            parameters.addAll(bound);
        } else {
            // Named parameters are the answer where the handler's own reads cannot be seen: only those it binds by
            // name join them, so that a cache-buster can be left out there too.
            bound.stream().filter(name -> !name.equals(IdempotentEndpoint.ALL_PARAMETERS)).forEach(parameters::add);
        }
        return new IdempotentEndpoint(operation, methods, idempotent.keyRequired(), endpointEngine,
                CanonicalJson.excluding(List.of(idempotent.excludedFields())), List.of(idempotent.fingerprintHeaders()),
                Set.copyOf(parameters));
    }

    /** The endpoint {@code request} goes to, or {@code null} if it is not idempotent. */
    @Nullable Match match(HttpServletRequest request) {
        if (!configured.isEmpty()) {
            PathContainer path;
            try {
                path = PathContainer.parsePath(request.getRequestURI().substring(request.getContextPath().length()));
            } catch (IllegalArgumentException undecodable) {
                // No pattern can match a path that does not decode; the dispatcher answers it.
                return annotatedMethods.contains(request.getMethod()) ? matchHandler(request) : null;
            }
            Match match = configured.match(request.getMethod(), path);
            if (match != null) {
                return match;
            }
        }
        return annotatedMethods.contains(request.getMethod()) ? matchHandler(request) : null;
    }

    private @Nullable Match matchHandler(HttpServletRequest request) {
        Object previousPath = request.getAttribute(ServletRequestPathUtils.PATH_ATTRIBUTE);
        try {
            ServletRequestPathUtils.parseAndCache(request);
            for (RequestMappingHandlerMapping mapping : mappings) {
                HandlerExecutionChain chain = mapping.getHandler(request);
                if (chain != null && chain.getHandler() instanceof HandlerMethod handler) {
                    IdempotentEndpoint endpoint = annotated.get(handler.getMethod());
                    if (endpoint == null || !endpoint.methods().contains(request.getMethod())) {
                        return null;
                    }
                    Object route = request.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
                    return new Match(endpoint, String.valueOf(route));
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
