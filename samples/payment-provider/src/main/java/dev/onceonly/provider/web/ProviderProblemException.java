package dev.onceonly.provider.web;

import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * A refusal that Spring MVC's problem-details handling answers as {@code application/problem+json}. Carries no
 * stack trace: it is an expected outcome, not a fault.
 */
public final class ProviderProblemException extends ErrorResponseException {

    private final ProblemType problemType;

    ProviderProblemException(ProblemType problemType, ProblemDetail problem) {
        super(problemType.status(), problem, null);
        this.problemType = problemType;
    }

    public ProblemType problemType() {
        return problemType;
    }

    /** Adds {@code Retry-After} (in seconds) for refusals that a retry can overcome. */
    public ProviderProblemException retryAfterSeconds(int seconds) {
        getHeaders().set("Retry-After", Integer.toString(seconds));
        return this;
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }
}
