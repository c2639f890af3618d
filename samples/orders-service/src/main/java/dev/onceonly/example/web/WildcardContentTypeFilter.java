package dev.onceonly.example.web;

import dev.onceonly.StoredResponse;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses a request whose {@code Content-Type} is a wildcard ({@code *}{@code /*}, {@code text/*}) with a 415
 * problem before anything reads it: a content type names what the body is, and Spring MVC's message readers fail
 * on a wildcard as a server error (issue 39: {@code 500} from the administrators' endpoint). An unparsable content
 * type is left to Spring MVC, which answers it 415 itself.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
class WildcardContentTypeFilter extends OncePerRequestFilter {

    private final Problems problems;

    WildcardContentTypeFilter(Problems problems) {
        this.problems = problems;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (!isWildcard(request.getContentType())) {
            chain.doFilter(request, response);
            return;
        }
        StoredResponse problem = problems.stored(HttpStatus.UNSUPPORTED_MEDIA_TYPE, "unsupported-media-type",
                "Unsupported media type", "A request's Content-Type must name a media type, not a wildcard",
                request.getRequestURI(), Map.of());
        response.setStatus(problem.status());
        problem.headers().forEach((name, values) -> values.forEach(value -> response.addHeader(name, value)));
        response.getOutputStream().write(problem.body());
    }

    static boolean isWildcard(@Nullable String contentType) {
        if (contentType == null) {
            return false;
        }
        try {
            MediaType type = MediaType.parseMediaType(contentType);
            return type.isWildcardType() || type.isWildcardSubtype();
        } catch (InvalidMediaTypeException unparsable) {
            return false;
        }
    }
}
