package dev.onceonly.spring.boot.web;

import dev.onceonly.Attempt;
import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.spring.boot.OnceOnlyProperties;
import java.lang.reflect.Method;
import java.security.Principal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodParameter;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.ui.Model;
import org.springframework.validation.Errors;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebSession;
import org.springframework.web.util.pattern.PathPattern;
import reactor.core.publisher.Mono;

/**
 * Finds the idempotent endpoint a request to a WebFlux application goes to: a configured path pattern (which
 * router functions use), or a handler method annotated with {@link Idempotent}, found as the dispatcher finds it.
 * Every endpoint is built, and every annotation checked, when the application starts.
 */
public final class ReactiveIdempotentEndpoints implements SmartInitializingSingleton {

    private static final Set<String> DEFAULT_METHODS = Set.of("POST", "PATCH");
    private static final ParameterNameDiscoverer NAMES = new DefaultParameterNameDiscoverer();
    /** Arguments WebFlux resolves without reading the query string. */
    private static final List<Class<?>> QUERY_FREE = List.of(Principal.class, WebSession.class,
            ServerHttpResponse.class, Model.class, Errors.class, Attempt.class);

    private final ApplicationContext context;
    private final IdempotencyEngine engine;
    private final OnceOnlyProperties properties;
    private final Map<Method, IdempotentEndpoint> annotated = new HashMap<>();
    private final List<RequestMappingHandlerMapping> mappings = new ArrayList<>();
    private final Set<String> annotatedMethods = new HashSet<>();
    private ConfiguredEndpoints configured = ConfiguredEndpoints.NONE;

    public ReactiveIdempotentEndpoints(ApplicationContext context, IdempotencyEngine engine,
            OnceOnlyProperties properties) {
        this.context = context;
        this.engine = engine;
        this.properties = properties;
    }

    @Override
    public void afterSingletonsInstantiated() {
        configured = ConfiguredEndpoints.of(properties, engine);
        mappings.addAll(context.getBeansOfType(RequestMappingHandlerMapping.class).values());
        for (RequestMappingHandlerMapping mapping : mappings) {
            mapping.getHandlerMethods().forEach((info, handler) -> {
                Idempotent idempotent = AnnotatedElementUtils.findMergedAnnotation(handler.getMethod(),
                        Idempotent.class);
                if (idempotent == null) {
                    return;
                }
                Set<String> methods = info.getMethodsCondition().getMethods().isEmpty() ? DEFAULT_METHODS
                        : info.getMethodsCondition().getMethods().stream().map(RequestMethod::name)
                                .collect(Collectors.toUnmodifiableSet());
                String where = IdempotentEndpoints.where(handler.getMethod());
                if (idempotent.value().isBlank()) {
                    IdempotentEndpoints.requireDefaultOperationsFit(where, methods, info.getPatternsCondition()
                            .getPatterns().stream().map(PathPattern::getPatternString).toList());
                }
                requireFiniteResponse(where, handler, info.getProducesCondition().getProducibleMediaTypes()
                        .stream().anyMatch(type -> type.isCompatibleWith(org.springframework.http.MediaType
                                .TEXT_EVENT_STREAM)));
                annotated.put(handler.getMethod(), IdempotentEndpoints.fromAnnotation(engine, idempotent, where,
                        methods, boundQueryParameters(handler)));
                annotatedMethods.addAll(methods);
            });
        }
    }

    /** An event stream never ends, so its response could never be stored. */
    private static void requireFiniteResponse(String where, HandlerMethod handler, boolean producesEventStream) {
        boolean events = ResolvableType.forMethodReturnType(handler.getMethod()).toString()
                .contains(ServerSentEvent.class.getName());
        if (producesEventStream || events) {
            throw IdempotencyConfigurationException.of(where, "the handler answers with an event stream, which "
                    + "does not end, so its outcome could never be stored");
        }
    }

    /**
     * The query parameters a WebFlux handler binds: named {@code @RequestParam}s and simple types bound by name;
     * a parameter map, a model attribute, the request or the exchange, or any other argument whose use of the query
     * cannot be seen, read any of them ({@value IdempotentEndpoint#ALL_PARAMETERS}).
     */
    static Set<String> boundQueryParameters(HandlerMethod handler) {
        Set<String> names = new TreeSet<>();
        for (MethodParameter parameter : handler.getMethodParameters()) {
            Class<?> type = parameter.nestedIfOptional().getNestedParameterType();
            RequestParam requestParam = parameter.getParameterAnnotation(RequestParam.class);
            if (requestParam != null) {
                names.add(Map.class.isAssignableFrom(type) ? IdempotentEndpoint.ALL_PARAMETERS
                        : parameterName(parameter, requestParam.name()));
            } else if (parameter.hasParameterAnnotation(ModelAttribute.class)
                    || ServerWebExchange.class.isAssignableFrom(type) || ServerHttpRequest.class.isAssignableFrom(type)) {
                names.add(IdempotentEndpoint.ALL_PARAMETERS);
            } else if (parameter.getParameterAnnotations().length == 0) {
                if (BeanUtils.isSimpleProperty(type)) {
                    names.add(parameterName(parameter, ""));
                } else if (QUERY_FREE.stream().noneMatch(free -> free.isAssignableFrom(type))
                        && !type.getName().startsWith("reactor.core.publisher.")) {
                    // Bound as a model attribute, from the query among others.
                    names.add(IdempotentEndpoint.ALL_PARAMETERS);
                }
            }
        }
        return names;
    }

    private static String parameterName(MethodParameter parameter, String declared) {
        if (!declared.isEmpty()) {
            return declared;
        }
        parameter.initParameterNameDiscovery(NAMES);
        String name = parameter.getParameterName();
        return name != null ? name : IdempotentEndpoint.ALL_PARAMETERS;
    }

    /** The endpoint {@code exchange} goes to; empty if it is not idempotent. */
    Mono<IdempotentEndpoints.Match> match(ServerWebExchange exchange) {
        String method = exchange.getRequest().getMethod().name();
        if (!configured.isEmpty()) {
            IdempotentEndpoints.Match match = configured.match(method, exchange.getRequest().getPath()
                    .pathWithinApplication());
            if (match != null) {
                return Mono.just(match);
            }
        }
        if (!annotatedMethods.contains(method)) {
            return Mono.empty();
        }
        return handler(exchange, 0).flatMap(handler -> Mono.justOrEmpty(matchOf(exchange, method, handler)));
    }

    /** The handler the first mapping that has one gives, as the dispatcher asks them. */
    private Mono<Object> handler(ServerWebExchange exchange, int index) {
        if (index >= mappings.size()) {
            return Mono.empty();
        }
        return mappings.get(index).getHandler(exchange)
                // No handler, wrong method or media type: the dispatcher answers those; nothing here is idempotent.
                .onErrorResume(noHandler -> Mono.empty())
                .switchIfEmpty(Mono.defer(() -> handler(exchange, index + 1)));
    }

    private IdempotentEndpoints.@Nullable Match matchOf(ServerWebExchange exchange, String method, Object handler) {
        if (!(handler instanceof HandlerMethod handlerMethod)) {
            return null;
        }
        IdempotentEndpoint endpoint = annotated.get(handlerMethod.getMethod());
        if (endpoint == null || !endpoint.methods().contains(method)) {
            return null;
        }
        Object route = exchange.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
        return new IdempotentEndpoints.Match(endpoint, route instanceof PathPattern pattern
                ? pattern.getPatternString() : String.valueOf(route));
    }
}
