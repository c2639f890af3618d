package dev.onceonly.example.web;

import dev.onceonly.StoredResponse;
import dev.onceonly.spring.boot.OnceOnlyProperties;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.json.ProblemDetailJacksonMixin;
import org.springframework.stereotype.Component;
import org.springframework.web.ErrorResponseException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The service's own problems (RFC 9457), typed under the same base URI as OnceOnly's
 * ({@code onceonly.http.problem-type-base}), so a client tells every problem apart by one {@code type} scheme.
 * Thrown from a handler, Spring MVC renders them as {@code application/problem+json}; inside an idempotent
 * request they are stored and replayed like any other answer. Work that answers with a {@link StoredResponse}
 * itself (an asynchronous operation) gets the same problem as one with {@link #stored}.
 */
@Component
public final class Problems {

    private static final URI DEFAULT_TYPE_BASE = URI.create("https://onceonly.dev/problems/");

    private final URI typeBase;
    private final JsonMapper json;

    /** OnceOnly's problem type base when it runs; its default otherwise (a run with {@code onceonly.enabled=false}). */
    public Problems(ObjectProvider<OnceOnlyProperties> properties, JsonMapper json) {
        OnceOnlyProperties onceOnly = properties.getIfAvailable();
        this.typeBase = onceOnly != null ? onceOnly.http().problemTypeBase() : DEFAULT_TYPE_BASE;
        // ProblemDetail's properties as top-level members, as Spring MVC writes them.
        this.json = json.rebuild().addMixIn(ProblemDetail.class, ProblemDetailJacksonMixin.class).build();
    }

    /**
     * @param type the stable slug, such as {@code stale-version}
     * @param title what kind of problem it is, the same for every occurrence
     * @param detail this occurrence; never a secret, a body or a database message
     */
    public ErrorResponseException of(HttpStatus status, String type, String title, String detail) {
        return new ErrorResponseException(status, problem(status, type, title, detail), null);
    }

    /**
     * The problem as a whole response, {@code application/problem+json}.
     *
     * @param instance the path of the resource the problem is about
     * @param headers further headers, such as {@code Retry-After}
     */
    public StoredResponse stored(HttpStatus status, String type, String title, String detail, String instance,
            Map<String, String> headers) {
        ProblemDetail problem = problem(status, type, title, detail);
        problem.setInstance(URI.create(instance));
        Map<String, List<String>> all = new LinkedHashMap<>();
        all.put(HttpHeaders.CONTENT_TYPE, List.of(MediaType.APPLICATION_PROBLEM_JSON_VALUE));
        headers.forEach((name, value) -> all.put(name, List.of(value)));
        return StoredResponse.of(status.value(), all, json.writeValueAsBytes(problem), null);
    }

    private ProblemDetail problem(HttpStatus status, String type, String title, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setType(typeBase.resolve(type));
        problem.setTitle(title);
        return problem;
    }
}
