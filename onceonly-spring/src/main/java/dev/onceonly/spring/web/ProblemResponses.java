package dev.onceonly.spring.web;

import dev.onceonly.IdempotencyException;
import dev.onceonly.http.ProblemCatalogue;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.json.ProblemDetailJacksonMixin;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes the protocol's problems ({@link ProblemCatalogue}: status, stable {@code type}, title, headers) as RFC 9457
 * bodies ({@code application/problem+json}): Spring's {@link ProblemDetail} written by the application's JSON mapper.
 * The detail names the rule broken, never the request body or a secret; no stack trace is ever written. Renders only,
 * for any server: each transport writes the {@link Rendered} problem, so that a WebFlux application without the
 * servlet API can hold it as a bean; an application's own handler can answer with one as the filters do.
 */
public final class ProblemResponses {

    private final JsonMapper json;
    private final ProblemCatalogue catalogue;

    /** @param json the application's mapper; {@link ProblemDetail}'s properties are written as top-level members */
    public ProblemResponses(JsonMapper json, ProblemCatalogue catalogue) {
        this.json = json.rebuild().addMixIn(ProblemDetail.class, ProblemDetailJacksonMixin.class).build();
        this.catalogue = catalogue;
    }

    /** A problem as a whole response, for any server: status, headers (the content type among them) and body. */
    public record Rendered(int status, Map<String, String> headers, byte[] body) {
    }

    /** {@code problem} as the protocol answers it; {@code instance} is the request's path. */
    public Rendered render(IdempotencyException problem, String instance) {
        return render(catalogue.of(problem), instance);
    }

    /** A problem Spring made of an exception (an {@code ErrorResponse}'s body), written like ours. */
    public Rendered render(ProblemDetail problem) {
        return new Rendered(problem.getStatus(), Map.of(HttpHeaders.CONTENT_TYPE,
                MediaType.APPLICATION_PROBLEM_JSON_VALUE), json.writeValueAsBytes(problem));
    }

    /** A problem of the catalogue by its type, with its detail and the wait it advises, if any. */
    public Rendered render(String problemType, @Nullable String detail, @Nullable Duration hint, String instance) {
        return render(catalogue.of(problemType, detail, hint), instance);
    }

    private Rendered render(ProblemCatalogue.Problem problem, String instance) {
        ProblemDetail body = ProblemDetail.forStatusAndDetail(HttpStatusCode.valueOf(problem.status()),
                problem.detail());
        body.setType(problem.type());
        body.setTitle(problem.title());
        body.setInstance(instance(instance));
        return new Rendered(problem.status(), problem.headers(), json.writeValueAsBytes(body));
    }

    /** The request path as the problem's {@code instance}, unless it is not a valid URI reference. */
    private static @Nullable URI instance(String path) {
        try {
            return URI.create(path);
        } catch (IllegalArgumentException notAUri) {
            return null;
        }
    }
}
