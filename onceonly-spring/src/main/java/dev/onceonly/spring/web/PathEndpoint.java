package dev.onceonly.spring.web;

import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * An endpoint made idempotent by its path rather than by {@link Idempotent}: a router function's, or one the
 * application cannot annotate. Spring Boot binds them from {@code onceonly.http.endpoints}.
 *
 * @param path a path pattern such as {@code /api/legacy/payments/**}
 * @param methods the HTTP methods it applies to
 * @param operation the operation name, or null for method and pattern
 * @param keyRequired whether a request without a key is refused (400) or passes through unprotected
 * @param fingerprintParameters query parameters that are part of the fingerprint; empty: all of them, since the
 *     handler's use of parameters is not seen
 */
public record PathEndpoint(String path, Set<String> methods, @Nullable String operation, boolean keyRequired,
        List<String> fingerprintParameters) {

    public PathEndpoint {
        methods = Set.copyOf(methods);
        fingerprintParameters = List.copyOf(fingerprintParameters);
    }
}
