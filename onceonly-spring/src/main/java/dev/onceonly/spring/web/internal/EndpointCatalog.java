package dev.onceonly.spring.web.internal;

import dev.onceonly.Attempt;
import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.spring.OnceOnlySetup;
import dev.onceonly.spring.async.AsynchronousOperations;
import dev.onceonly.spring.web.AcceptedRequest;
import dev.onceonly.spring.web.Idempotent;
import dev.onceonly.spring.web.PathEndpoint;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationContext;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.http.server.PathContainer;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.util.pattern.PathPattern;

/**
 * The idempotent endpoints of an application, configured by path or annotated handler methods of a dispatcher: built
 * and checked when the application starts, by the same rules on Spring MVC and WebFlux. Each transport says what it
 * reads of a handler's signature ({@link Transport}); the mappings themselves are its to walk.
 */
public final class EndpointCatalog {

    /** The methods an annotated mapping that names none applies to. */
    private static final Set<String> DEFAULT_METHODS = Set.of("POST", "PATCH");

    /** What a transport reads of an annotated handler's signature. */
    public interface Transport {

        /**
         * Refuses, before the endpoint is built, a handler this transport cannot serve idempotently.
         *
         * @throws IdempotencyConfigurationException naming what is wrong
         */
        void check(String where, HandlerMethod handler, Idempotent idempotent);

        /** The query parameters the handler binds; {@value IdempotentEndpoint#ALL_PARAMETERS} if it may read any. */
        Set<String> boundQueryParameters(HandlerMethod handler);
    }

    private final IdempotencyEngine engine;
    private final List<PathEndpoint> pathEndpoints;
    private final Transport transport;
    private ConfiguredEndpoints configured = ConfiguredEndpoints.NONE;
    private final Map<Method, IdempotentEndpoint> endpoints = new HashMap<>();
    /** The route templates of each handler, which its requests' fingerprints include. */
    private final Map<Method, Set<String>> routes = new HashMap<>();
    /** The HTTP methods annotated endpoints apply to: other requests skip the handler lookup entirely. */
    private final Set<String> httpMethods = new HashSet<>();

    public EndpointCatalog(IdempotencyEngine engine, List<PathEndpoint> pathEndpoints, Transport transport) {
        this.engine = engine;
        this.pathEndpoints = List.copyOf(pathEndpoints);
        this.transport = transport;
    }

    /**
     * Builds the endpoints configured by path, when the application starts.
     *
     * @throws IdempotencyConfigurationException naming the endpoint that is wrong
     */
    public void configure() {
        configured = ConfiguredEndpoints.of(pathEndpoints, engine);
    }

    /** The endpoint configured for a request of {@code httpMethod} to {@code path}, or {@code null}. */
    public @Nullable EndpointMatch configured(String httpMethod, PathContainer path) {
        return configured.isEmpty() ? null : configured.match(httpMethod, path);
    }

    /** Whether some endpoint is configured by path. */
    public boolean hasConfigured() {
        return !configured.isEmpty();
    }

    /**
     * The endpoint of {@code handler} if it is annotated, now also found by {@link #match}, else {@code null}.
     *
     * @param declared the HTTP methods its mapping names; a mapping that names none answers every method, GET and
     *     HEAD too, of which only {@code POST} and {@code PATCH} change state
     * @param routes the route templates of its mapping
     * @throws IdempotencyConfigurationException naming what is wrong
     */
    public @Nullable IdempotentEndpoint add(HandlerMethod handler, Set<RequestMethod> declared,
            Collection<String> routes) {
        Method method = handler.getMethod();
        Idempotent idempotent = AnnotatedElementUtils.findMergedAnnotation(method, Idempotent.class);
        if (idempotent == null) {
            return null;
        }
        Set<String> methods = declared.isEmpty() ? DEFAULT_METHODS
                : declared.stream().map(RequestMethod::name).collect(Collectors.toUnmodifiableSet());
        String where = AnnotatedEndpoints.where(method);
        if (idempotent.value().isBlank()) {
            AnnotatedEndpoints.requireDefaultOperationsFit(where, methods, routes);
        }
        transport.check(where, handler, idempotent);
        IdempotentEndpoint endpoint = AnnotatedEndpoints.fromAnnotation(engine, idempotent, where, methods,
                transport.boundQueryParameters(handler));
        endpoints.put(method, endpoint);
        this.routes.put(method, Set.copyOf(routes));
        httpMethods.addAll(methods);
        return endpoint;
    }

    /** Whether some annotated endpoint applies to requests of {@code httpMethod}. */
    public boolean applyTo(String httpMethod) {
        return httpMethods.contains(httpMethod);
    }

    /**
     * The endpoint a request of {@code httpMethod} that the dispatcher gives to {@code handler} goes to, or
     * {@code null} if it is not one.
     *
     * @param route the pattern that matched the request, as the dispatcher's mapping recorded it
     */
    public @Nullable EndpointMatch match(Object handler, String httpMethod, @Nullable Object route) {
        IdempotentEndpoint endpoint = handler instanceof HandlerMethod method ? endpoints.get(method.getMethod())
                : null;
        if (endpoint == null || !endpoint.methods().contains(httpMethod)) {
            return null;
        }
        return new EndpointMatch(endpoint, route instanceof PathPattern pattern ? pattern.getPatternString()
                : String.valueOf(route));
    }

    /** The engine each annotated handler method runs on: its mode, wait and retention. */
    public Map<Method, IdempotencyEngine> engines() {
        Map<Method, IdempotencyEngine> engines = new HashMap<>();
        endpoints.forEach((method, endpoint) -> engines.put(method, endpoint.engine()));
        return Map.copyOf(engines);
    }

    /** Tells the startup line, where there is one, about every endpoint. */
    public void reportTo(ApplicationContext context) {
        context.getBeanProvider(OnceOnlySetup.class).ifAvailable(setup -> {
            configured.reportTo(setup);
            endpoints.forEach((method, endpoint) -> endpoint.reportTo(setup,
                    method.getDeclaringClass().getSimpleName() + "." + method.getName()));
        });
    }

    /**
     * An asynchronous handler answers through its {@link AcceptedRequest}: without one it would run unprotected,
     * and an {@link Attempt} or an {@code AcceptedRequest} where the filter makes none would fail every request.
     */
    public static void requireFilterArguments(String where, HandlerMethod handler, boolean asynchronous) {
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
     * What accepts the requests of asynchronous endpoints, or {@code null} if there are none. An asynchronous
     * endpoint only accepts requests; without a worker for its operation nothing would ever run them. Looked up here,
     * not injected, so that an application without db-scheduler never loads its types.
     *
     * @throws IdempotencyConfigurationException if an asynchronous endpoint's operation has no worker, or differs
     *     from a synchronous one of the same operation
     */
    public @Nullable AsynchronousOperations asynchronousOperations(ApplicationContext context) {
        AsynchronousOperations operations = null;
        for (Map.Entry<Method, IdempotentEndpoint> asynchronous : endpoints.entrySet()) {
            IdempotentEndpoint endpoint = asynchronous.getValue();
            if (!endpoint.asynchronous()) {
                continue;
            }
            String where = AnnotatedEndpoints.where(asynchronous.getKey()) + " asynchronous";
            if (operations == null) {
                operations = context.getBeanProvider(AsynchronousOperations.class).getIfAvailable();
            }
            if (operations == null) {
                throw IdempotencyConfigurationException.of(where, "asynchronous operations are not set up",
                        "Add com.github.kagkarlsson:db-scheduler and onceonly-jdbc's store, and keep "
                                + "onceonly.enabled on");
            }
            if (!operations.runs(String.valueOf(endpoint.operation()))) {
                throw IdempotencyConfigurationException.of(where, "no AsynchronousOperation bean is named '"
                        + endpoint.operation() + "', so nothing would run what the endpoint accepts",
                        "Define an AsynchronousOperation bean whose name() is the operation's name");
            }
            endpoints.forEach((method, twin) -> requireSameRequest(where, asynchronous.getKey(), endpoint, method,
                    twin));
        }
        return operations;
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
        boolean sameFingerprint = twin.methods().equals(asynchronous.methods())
                && Objects.equals(routes.get(twinMethod), routes.get(method))
                && twin.canonicalJson().equals(asynchronous.canonicalJson())
                && twin.fingerprintHeaders().equals(asynchronous.fingerprintHeaders())
                && twin.fingerprintParameters().equals(asynchronous.fingerprintParameters());
        if (!sameFingerprint || !twin.engine().retention().equals(engine.retention())) {
            throw IdempotencyConfigurationException.of(where, "it shares operation '" + asynchronous.operation()
                    + "' with " + AnnotatedEndpoints.where(twinMethod) + ", but they differ in HTTP methods, routes, "
                    + "excludedFields, fingerprintHeaders, the query parameters that take part, or retention, so a "
                    + "retry in the other form would be refused or run again", "Map both to the same methods and "
                    + "routes, give them the same fingerprint settings, and the synchronous one the application's "
                    + "retention");
        }
    }
}
