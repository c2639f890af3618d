package dev.onceonly.spring.web.servlet;

import dev.onceonly.StoredResponse;
import dev.onceonly.spring.web.ProblemResponses;
import dev.onceonly.spring.web.internal.StoredResponses;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.http.HttpHeaders;

/** Writes the protocol's answers that are not the handler's as a servlet response's whole answer. */
final class ServletAnswers {

    private ServletAnswers() {
    }

    /** A rendered problem ({@link ProblemResponses}). */
    static void problem(HttpServletResponse response, ProblemResponses.Rendered problem) throws IOException {
        response.resetBuffer();
        response.setStatus(problem.status());
        problem.headers().forEach((name, value) -> {
            // Through its own setter, which a wrapping response (the held-back buffer) keeps apart.
            if (name.equals(HttpHeaders.CONTENT_TYPE)) {
                response.setContentType(value);
            } else {
                response.setHeader(name, value);
            }
        });
        response.setContentLength(problem.body().length);
        response.getOutputStream().write(problem.body());
    }

    /**
     * Writes a stored response, marked as replayed. Headers that filters before this one set (CORS, security)
     * stay; the stored headers replace any of the same name.
     */
    static void replay(HttpServletResponse response, StoredResponse stored) throws IOException {
        response.resetBuffer();
        response.setStatus(stored.status());
        StoredResponses.replayHeaders(stored, response::setHeader, response::addHeader);
        byte[] body = stored.body();
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }
}
