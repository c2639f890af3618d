package dev.onceonly.spring.web.servlet;

import dev.onceonly.spring.web.ProblemResponses;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.security.web.firewall.RequestRejectedException;
import org.springframework.security.web.firewall.RequestRejectedHandler;

/**
 * Answers a request that Spring Security's firewall rejected (a header value with control characters, such as a
 * non-ASCII {@code Idempotency-Key}; an encoded slash in the path) with a 400 problem {@code request-rejected},
 * instead of an error page that an API client cannot read. The firewall's message quotes the rejected value (which
 * can be an {@code Authorization} or {@code Cookie} header), so it is neither sent nor logged.
 */
public final class ProblemRequestRejectedHandler implements RequestRejectedHandler {

    private static final Logger log = LoggerFactory.getLogger(ProblemRequestRejectedHandler.class);

    private final ProblemResponses problems;

    public ProblemRequestRejectedHandler(ProblemResponses problems) {
        this.problems = problems;
    }

    @Override
    public void handle(HttpServletRequest request, HttpServletResponse response, RequestRejectedException rejected)
            throws IOException {
        log.debug("Request to {} rejected by the firewall ({})", request.getRequestURI(),
                rejected.getClass().getName());
        ServletAnswers.problem(response, problems.render("request-rejected", "The request has a header, parameter or "
                + "path that this server does not accept", null, request.getRequestURI()));
    }
}
