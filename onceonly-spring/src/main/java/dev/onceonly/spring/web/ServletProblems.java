package dev.onceonly.spring.web;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.http.HttpHeaders;

/** Writes a rendered problem ({@link ProblemResponses}) as a servlet response's whole answer. */
final class ServletProblems {

    private ServletProblems() {
    }

    static void write(HttpServletResponse response, ProblemResponses.Rendered problem) throws IOException {
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
}
