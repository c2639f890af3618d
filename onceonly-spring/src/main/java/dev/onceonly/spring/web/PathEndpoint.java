package dev.onceonly.spring.web;

import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.spring.web.internal.AnnotatedEndpoints;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.web.util.pattern.PathPatternParser;
import org.springframework.web.util.pattern.PatternParseException;

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

    /** @throws IdempotencyConfigurationException naming the component that is wrong */
    public PathEndpoint {
        if (path == null || !path.startsWith("/")) {
            throw IdempotencyConfigurationException.of("path", "must be a path pattern starting with '/', not "
                    + path);
        }
        try {
            PathPatternParser.defaultInstance.parse(path);
        } catch (PatternParseException e) {
            throw IdempotencyConfigurationException.of("path", "'" + path + "' is not a path pattern: "
                    + e.getMessage());
        }
        if (methods.isEmpty() || !methods.stream().allMatch(method -> method.matches("[A-Za-z]+"))) {
            throw IdempotencyConfigurationException.of("methods", "must name HTTP methods such as POST, not "
                    + methods);
        }
        if (operation == null) {
            AnnotatedEndpoints.requireDefaultOperationsFit("path", methods, Set.of(path));
        }
        if (operation != null && (operation.isBlank() || operation.length() > IdempotencyScope.MAX_NAME_LENGTH)) {
            throw IdempotencyConfigurationException.of("operation", "must be 1 to "
                    + IdempotencyScope.MAX_NAME_LENGTH + " characters");
        }
        if (fingerprintParameters.stream().anyMatch(String::isBlank)) {
            throw IdempotencyConfigurationException.of("fingerprintParameters", "must name query parameters, not "
                    + "blanks");
        }
        methods = Set.copyOf(methods);
        fingerprintParameters = List.copyOf(fingerprintParameters);
    }
}
