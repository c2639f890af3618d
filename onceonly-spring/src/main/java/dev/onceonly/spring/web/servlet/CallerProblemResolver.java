package dev.onceonly.spring.web.servlet;

import dev.onceonly.IdempotencyException;
import dev.onceonly.spring.web.ProblemResponses;
import dev.onceonly.spring.web.internal.IdempotencyProtocol;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

/**
 * Answers what an idempotent call of a handler threw ({@link IdempotencyProtocol#callerProblem}) with its problem, as
 * the filter answers a request: a reused key is a 422, not a 500. Ordered after Spring's resolvers, so that an
 * application's own {@code @ExceptionHandler} wins. Inside an idempotent endpoint's attempt it leaves the failure to
 * the filter, which answers it alike as a failure of the handler's: nothing is stored as the endpoint's answer, and
 * in leased mode the attempt counts as failed ({@code onceonly.lease.max-attempts}).
 */
public final class CallerProblemResolver implements HandlerExceptionResolver, Ordered {

    private final ProblemResponses problems;

    public CallerProblemResolver(ProblemResponses problems) {
        this.problems = problems;
    }

    @Override
    public @Nullable ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response,
            @Nullable Object handler, Exception failure) {
        IdempotencyException problem = IdempotencyProtocol.callerProblem(failure);
        if (problem == null || request.getAttribute(IdempotencyProtocol.ATTEMPT_ATTRIBUTE) != null
                || response.isCommitted()) {
            return null;
        }
        try {
            ServletAnswers.problem(response, problems.render(problem, request.getRequestURI()));
        } catch (IOException clientGone) {
            return null;
        }
        return new ModelAndView();
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE - 100;
    }
}
