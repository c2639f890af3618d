package dev.onceonly.example.web;

import dev.onceonly.spring.boot.OnceOnlyProperties;
import java.net.URI;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.stereotype.Component;
import org.springframework.web.ErrorResponseException;

/**
 * The service's own problems (RFC 9457), typed under the same base URI as OnceOnly's
 * ({@code onceonly.http.problem-type-base}), so a client tells every problem apart by one {@code type} scheme.
 * Thrown from a handler, Spring MVC renders them as {@code application/problem+json}; inside an idempotent
 * request they are stored and replayed like any other answer.
 */
@Component
public final class Problems {

    private final URI typeBase;

    public Problems(OnceOnlyProperties properties) {
        this.typeBase = properties.http().problemTypeBase();
    }

    /**
     * @param type the stable slug, such as {@code stale-version}
     * @param title what kind of problem it is, the same for every occurrence
     * @param detail this occurrence; never a secret, a body or a database message
     */
    public ErrorResponseException of(HttpStatus status, String type, String title, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setType(typeBase.resolve(type));
        problem.setTitle(title);
        return new ErrorResponseException(status, problem, null);
    }
}
