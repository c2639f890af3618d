package dev.onceonly.example.web;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The error page as an RFC 9457 problem, in place of Boot's JSON error body: what {@code sendError} outside a
 * handler leads to, such as Spring Security's 401 (its {@code WWW-Authenticate} header stays) and 403. The
 * error's message and exception are never written.
 */
@RestController
class ProblemErrorController implements ErrorController {

    @RequestMapping("${server.error.path:/error}")
    ResponseEntity<ProblemDetail> error(HttpServletRequest request) {
        HttpStatusCode status = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE) instanceof Integer code
                && code >= 400 && code <= 599 ? HttpStatusCode.valueOf(code) : HttpStatus.INTERNAL_SERVER_ERROR;
        ProblemDetail problem = ProblemDetail.forStatus(status);
        if (request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI) instanceof String path) {
            problem.setInstance(instance(path));
        }
        return ResponseEntity.status(status).body(problem);
    }

    private static @Nullable URI instance(String path) {
        try {
            return URI.create(path);
        } catch (IllegalArgumentException notAUri) {
            return null;
        }
    }
}
