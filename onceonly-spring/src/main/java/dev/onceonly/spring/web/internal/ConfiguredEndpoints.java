package dev.onceonly.spring.web.internal;

import dev.onceonly.CanonicalJson;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.spring.OnceOnlySetup;
import dev.onceonly.spring.web.PathEndpoint;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * The endpoints made idempotent by path ({@code onceonly.http.endpoints}), for any handler: a controller's, a router
 * function's, one the application cannot annotate.
 */
public final class ConfiguredEndpoints {

    public static final ConfiguredEndpoints NONE = new ConfiguredEndpoints(List.of());

    private record Configured(PathPattern pattern, IdempotentEndpoint endpoint) {
    }

    private final List<Configured> endpoints;

    private ConfiguredEndpoints(List<Configured> endpoints) {
        this.endpoints = List.copyOf(endpoints);
    }

    /** The endpoints, which {@link PathEndpoint} checked when each was made. */
    public static ConfiguredEndpoints of(List<PathEndpoint> configured, IdempotencyEngine engine) {
        List<Configured> endpoints = new ArrayList<>();
        for (PathEndpoint endpoint : configured) {
            PathPattern pattern = PathPatternParser.defaultInstance.parse(endpoint.path());
            Set<String> methods = endpoint.methods().stream().map(m -> m.toUpperCase(Locale.ROOT))
                    .collect(Collectors.toUnmodifiableSet());
            // Its handler is not seen, so nor is which parameters it reads: all of them, unless named.
            Set<String> parameters = endpoint.fingerprintParameters().isEmpty()
                    ? Set.of(IdempotentEndpoint.ALL_PARAMETERS) : Set.copyOf(endpoint.fingerprintParameters());
            endpoints.add(new Configured(pattern, new IdempotentEndpoint(endpoint.operation(), methods,
                    endpoint.keyRequired(), engine, CanonicalJson.standard(), List.of(), parameters, false)));
        }
        return new ConfiguredEndpoints(endpoints);
    }

    public void reportTo(OnceOnlySetup setup) {
        endpoints.forEach(configured -> configured.endpoint().reportTo(setup,
                String.join("|", new TreeSet<>(configured.endpoint().methods())) + " "
                        + configured.pattern().getPatternString()));
    }

    public boolean isEmpty() {
        return endpoints.isEmpty();
    }

    /** The first configured endpoint whose pattern matches {@code path} and that applies to {@code method}. */
    public @Nullable EndpointMatch match(String method, PathContainer path) {
        for (Configured configured : endpoints) {
            if (configured.pattern().matches(path) && configured.endpoint().methods().contains(method)) {
                return new EndpointMatch(configured.endpoint(), configured.pattern().getPatternString());
            }
        }
        return null;
    }
}
