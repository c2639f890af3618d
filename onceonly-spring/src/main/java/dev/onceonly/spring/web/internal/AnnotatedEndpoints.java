package dev.onceonly.spring.web.internal;

import dev.onceonly.CanonicalJson;
import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.OperationPolicy;
import dev.onceonly.OutcomePolicy.Decision;
import dev.onceonly.spring.AnnotatedTimings;
import dev.onceonly.spring.web.Idempotent;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodParameter;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.web.bind.annotation.RequestParam;

/**
 * Endpoints built from {@link Idempotent} annotations, the same for Spring MVC and WebFlux: neither's types are
 * needed here.
 */
public final class AnnotatedEndpoints {

    private static final ParameterNameDiscoverer NAMES = new DefaultParameterNameDiscoverer();

    private AnnotatedEndpoints() {
    }

    /**
     * The query parameter a handler's parameter binds by name: its {@code @RequestParam} name, else its own name;
     * {@value IdempotentEndpoint#ALL_PARAMETERS} if that is unknown (compiled without {@code -parameters}), since every
     * parameter might then be the one it binds.
     */
    public static String boundName(MethodParameter parameter) {
        RequestParam annotation = parameter.getParameterAnnotation(RequestParam.class);
        if (annotation != null && !annotation.name().isEmpty()) {
            return annotation.name();
        }
        parameter.initParameterNameDiscovery(NAMES);
        String name = parameter.getParameterName();
        return name != null ? name : IdempotentEndpoint.ALL_PARAMETERS;
    }

    /**
     * The endpoint an annotated handler is, on any server.
     *
     * @param where the annotation and its method, for the message of a refusal
     * @param bound the query parameters the handler binds; {@value IdempotentEndpoint#ALL_PARAMETERS} if it may
     *     read any
     * @throws IdempotencyConfigurationException naming the attribute that is wrong
     */
    public static IdempotentEndpoint fromAnnotation(IdempotencyEngine engine, Idempotent idempotent, String where,
            Set<String> methods, Set<String> bound) {
        if (idempotent.value().length() > IdempotencyScope.MAX_NAME_LENGTH) {
            throw IdempotencyConfigurationException.of(where, "the operation name is longer than "
                    + IdempotencyScope.MAX_NAME_LENGTH + " characters");
        }
        OperationPolicy policy = new AnnotatedTimings(idempotent.waitTimeout(), idempotent.retention(),
                idempotent.failedRetention(), idempotent.abandonedRetention())
                .applyTo(OperationPolicy.ENGINE_DEFAULTS, engine, where);
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
            policy = policy.withOutcomePolicy(engine.outcomePolicy().overriding(overrides));
        }
        if (idempotent.asynchronous() && idempotent.value().isBlank()) {
            throw IdempotencyConfigurationException.of(where + " asynchronous", "an asynchronous endpoint accepts "
                    + "requests for the AsynchronousOperation of its operation name, and it has none",
                    "Name the operation, as the AsynchronousOperation bean that runs it is named");
        }
        if (idempotent.asynchronous() && (!idempotent.waitTimeout().isEmpty() || !idempotent.retention().isEmpty()
                || !idempotent.failedRetention().isEmpty() || !idempotent.abandonedRetention().isEmpty()
                || idempotent.mode() != IdempotencyMode.AUTO || idempotent.retryableStatuses().length > 0
                || idempotent.finalStatuses().length > 0)) {
            throw IdempotencyConfigurationException.of(where + " asynchronous", "an asynchronous endpoint only "
                    + "accepts its operation; the worker runs and stores it with the application's settings "
                    + "(onceonly.*), so its wait, retention, mode and statuses would be ignored",
                    "Leave them out here, and set them for the whole application");
        }
        if (idempotent.asynchronous() && !idempotent.keyRequired()) {
            throw IdempotencyConfigurationException.of(where + " keyRequired", "an asynchronous endpoint "
                    + "accepts an operation under its key, and a request without one would have nothing to accept "
                    + "it under", "Leave keyRequired at true");
        }
        if (idempotent.mode() == IdempotencyMode.JOINED) {
            throw IdempotencyConfigurationException.of(where + " mode", "joined mode runs in the caller's "
                    + "transaction, and a request has none when OnceOnly handles it (it answers after the commit)",
                    "Use auto, transactional or leased on endpoints");
        }
        if (idempotent.mode() != IdempotencyMode.AUTO) {
            policy = policy.withMode(idempotent.mode());
        }
        IdempotencyEngine endpointEngine;
        try {
            endpointEngine = engine.forOperation(policy);
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
                Set.copyOf(parameters), idempotent.asynchronous());
    }

    /**
     * A default operation name (method and route template) must fit the store's operation column, or every request
     * to the endpoint would fail.
     */
    public static void requireDefaultOperationsFit(String where, Collection<String> methods,
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

    /** The annotation and its method, for the message of a refusal. */
    public static String where(Method method) {
        return "@Idempotent on " + method.getDeclaringClass().getSimpleName() + "." + method.getName();
    }
}
