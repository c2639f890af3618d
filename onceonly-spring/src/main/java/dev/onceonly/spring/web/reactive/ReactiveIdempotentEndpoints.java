package dev.onceonly.spring.web.reactive;

import dev.onceonly.Attempt;
import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.spring.web.Idempotent;
import dev.onceonly.spring.web.PathEndpoint;
import dev.onceonly.spring.web.internal.AnnotatedEndpoints;
import dev.onceonly.spring.web.internal.EndpointCatalog;
import dev.onceonly.spring.web.internal.EndpointMatch;
import dev.onceonly.spring.web.internal.IdempotentEndpoint;
import java.security.Principal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.beans.BeanUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationContext;
import org.springframework.core.MethodParameter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.ui.Model;
import org.springframework.validation.Errors;
import org.springframework.web.bind.annotation.CookieValue;
import org.springframework.web.bind.annotation.MatrixVariable;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RequestPart;
import org.springframework.web.bind.annotation.SessionAttribute;
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

    private static final List<MediaType> STREAMING = List.of(MediaType.TEXT_EVENT_STREAM, MediaType.APPLICATION_NDJSON,
            MediaType.parseMediaType("application/stream+json"), MediaType.parseMediaType("application/x-ndjson"));
    /** Annotations that bind a parameter from anything but the query string. */
    private static final Set<String> NOT_FROM_QUERY = Set.of(RequestBody.class.getName(),
            RequestHeader.class.getName(), PathVariable.class.getName(), CookieValue.class.getName(),
            RequestAttribute.class.getName(), SessionAttribute.class.getName(), MatrixVariable.class.getName(),
            RequestPart.class.getName(), "org.springframework.security.core.annotation.AuthenticationPrincipal",
            "org.springframework.security.core.annotation.CurrentSecurityContext");
    /** Arguments WebFlux resolves without reading the query string. */
    private static final List<Class<?>> QUERY_FREE = List.of(Principal.class, WebSession.class,
            ServerHttpResponse.class, Model.class, Errors.class, Attempt.class);

    private final ApplicationContext context;
    private final EndpointCatalog catalog;
    /** Every handler mapping, in the dispatcher's order: the first that has a handler for a request serves it. */
    private final List<HandlerMapping> mappings = new ArrayList<>();

    public ReactiveIdempotentEndpoints(ApplicationContext context, IdempotencyEngine engine,
            List<PathEndpoint> pathEndpoints) {
        this.context = context;
        this.catalog = new EndpointCatalog(engine, pathEndpoints, new WebFluxHandlers());
    }

    @Override
    public void afterSingletonsInstantiated() {
        catalog.configure();
        mappings.addAll(context.getBeansOfType(HandlerMapping.class).values());
        AnnotationAwareOrderComparator.sort(mappings);
        for (RequestMappingHandlerMapping mapping : context.getBeansOfType(RequestMappingHandlerMapping.class)
                .values()) {
            mapping.getHandlerMethods().forEach((info, handler) -> {
                String where = AnnotatedEndpoints.where(handler.getMethod());
                if (AnnotatedElementUtils.hasAnnotation(handler.getMethod(), Idempotent.class)) {
                    // First: a stream is the root of whatever else would be wrong with its endpoint.
                    requireFiniteResponse(where, handler, info.getProducesCondition().getProducibleMediaTypes()
                            .stream().anyMatch(type -> STREAMING.stream().anyMatch(type::isCompatibleWith)));
                }
                IdempotentEndpoint endpoint = catalog.add(handler, info.getMethodsCondition().getMethods(),
                        info.getPatternsCondition().getPatterns().stream().map(PathPattern::getPatternString)
                                .toList());
                if (endpoint != null) {
                    requireTransactionThread(where, handler, endpoint);
                }
            });
        }
        catalog.reportTo(context);
    }

    /** What WebFlux reads of an annotated handler's signature. */
    private static final class WebFluxHandlers implements EndpointCatalog.Transport {

        @Override
        public void check(String where, HandlerMethod handler, Idempotent idempotent) {
            if (idempotent.asynchronous()) {
                throw IdempotencyConfigurationException.of(where + " asynchronous", "asynchronous endpoints "
                        + "are served on Spring MVC only so far", "Accept the operation with "
                        + "AsynchronousOperations.submit in the handler, or serve it with Spring MVC");
            }
        }

        @Override
        public Set<String> boundQueryParameters(HandlerMethod handler) {
            return ReactiveIdempotentEndpoints.boundQueryParameters(handler);
        }
    }

    /**
     * With virtual threads, WebFlux runs a handler that returns a plain value on a thread of its own, off the one
     * that holds a transactional endpoint's transaction: every such request would end as handler-left-transaction.
     */
    private void requireTransactionThread(String where, HandlerMethod handler, IdempotentEndpoint endpoint) {
        boolean virtualThreads = context.getEnvironment().getProperty("spring.threads.virtual.enabled",
                Boolean.class, false);
        Class<?> returned = handler.getMethod().getReturnType();
        if (virtualThreads && endpoint.engine().mode() != IdempotencyMode.LEASED
                && ReactiveAdapterRegistry.getSharedInstance().getAdapter(returned) == null) {
            throw IdempotencyConfigurationException.of(where, "with spring.threads.virtual.enabled, WebFlux runs a "
                    + "handler that returns " + returned.getSimpleName() + " on a virtual thread, outside the "
                    + "transaction of transactional mode", "Return a Mono, or choose mode = LEASED");
        }
    }

    /** A stream (events, NDJSON) need not end, so its response could never be stored. */
    private static void requireFiniteResponse(String where, HandlerMethod handler, boolean producesEventStream) {
        boolean events = ResolvableType.forMethodReturnType(handler.getMethod()).toString()
                .contains(ServerSentEvent.class.getName());
        if (producesEventStream || events) {
            throw IdempotencyConfigurationException.of(where, "the handler answers with a stream (server-sent "
                    + "events, NDJSON), which need not end, so its outcome could never be stored");
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
            RequestParam requestParam = parameter.getParameterAnnotation(RequestParam.class);
            Class<?> type = valueType(parameter);
            if (requestParam != null) {
                names.add(Map.class.isAssignableFrom(type) ? IdempotentEndpoint.ALL_PARAMETERS
                        : AnnotatedEndpoints.boundName(parameter));
            } else if (Arrays.stream(parameter.getParameterAnnotations())
                    .anyMatch(annotation -> NOT_FROM_QUERY.contains(annotation.annotationType().getName()))) {
                continue;
            } else if (parameter.hasParameterAnnotation(ModelAttribute.class)
                    || ServerWebExchange.class.isAssignableFrom(type) || ServerHttpRequest.class.isAssignableFrom(type)) {
                names.add(IdempotentEndpoint.ALL_PARAMETERS);
            } else if (BeanUtils.isSimpleProperty(type)) {
                // Bound by name, as an implicit @RequestParam.
                names.add(AnnotatedEndpoints.boundName(parameter));
            } else if (QUERY_FREE.stream().noneMatch(free -> free.isAssignableFrom(type))) {
                // Bound as a model attribute, from the query among others (@Valid or not).
                names.add(IdempotentEndpoint.ALL_PARAMETERS);
            }
        }
        return names;
    }

    /** The type a parameter's value has, inside {@code Optional}, {@code Mono} or another reactive wrapper. */
    private static Class<?> valueType(MethodParameter parameter) {
        MethodParameter nested = parameter.nestedIfOptional();
        Class<?> type = nested.getNestedParameterType();
        if (ReactiveAdapterRegistry.getSharedInstance().getAdapter(type) != null) {
            Class<?> element = ResolvableType.forMethodParameter(nested).getGeneric(0).resolve();
            return element != null ? element : Object.class;
        }
        return type;
    }

    /** The endpoint {@code exchange} goes to; empty if it is not idempotent. */
    Mono<EndpointMatch> match(ServerWebExchange exchange) {
        String method = exchange.getRequest().getMethod().name();
        EndpointMatch configured = catalog.configured(method, exchange.getRequest().getPath().pathWithinApplication());
        if (configured != null) {
            return Mono.just(configured);
        }
        if (!catalog.applyTo(method)) {
            return Mono.empty();
        }
        return handler(exchange, 0).flatMap(handler -> Mono.justOrEmpty(catalog.match(handler, method,
                exchange.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE))));
    }

    /** The handler the first mapping that has one gives, as the dispatcher asks them. */
    private Mono<Object> handler(ServerWebExchange exchange, int index) {
        if (index >= mappings.size()) {
            return Mono.empty();
        }
        // CORS processing writes headers into the response while it looks up: into one that is thrown away.
        ServerWebExchange lookup = exchange.mutate().response(new HeldBackResponse(exchange.getResponse(), 0))
                .build();
        return mappings.get(index).getHandler(lookup)
                .switchIfEmpty(Mono.defer(() -> handler(exchange, index + 1)))
                // Wrong method or media type: the dispatcher stops at the first mapping that fails, and answers with
                // its error; no later mapping's handler runs, so nothing here is idempotent.
                .onErrorResume(noHandler -> Mono.empty());
    }
}
