package dev.onceonly.provider.web;

import java.net.URI;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

/** Every problem the provider answers with: its status, its stable {@code type} URI slug and its title. */
public enum ProblemType {
    INVALID_IDEMPOTENCY_KEY(HttpStatus.BAD_REQUEST, "invalid-idempotency-key", "Invalid Idempotency-Key"),
    INVALID_REQUEST(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid request"),
    CARD_DECLINED(HttpStatus.PAYMENT_REQUIRED, "card-declined", "Card declined"),
    CHARGE_NOT_FOUND(HttpStatus.NOT_FOUND, "charge-not-found", "Charge not found"),
    EVENT_NOT_FOUND(HttpStatus.NOT_FOUND, "event-not-found", "Event not found"),
    REQUEST_IN_PROGRESS(HttpStatus.CONFLICT, "request-in-progress", "Request in progress"),
    CHARGE_NOT_REFUNDABLE(HttpStatus.CONFLICT, "charge-not-refundable", "Charge not refundable"),
    IDEMPOTENCY_KEY_REUSED(HttpStatus.UNPROCESSABLE_CONTENT, "idempotency-key-reused", "Idempotency-Key reused"),
    PROVIDER_UNAVAILABLE(HttpStatus.SERVICE_UNAVAILABLE, "provider-unavailable", "Provider unavailable");

    private static final String BASE = "https://provider.example/problems/";

    private final HttpStatus status;
    private final URI type;
    private final String title;

    ProblemType(HttpStatus status, String slug, String title) {
        this.status = status;
        this.type = URI.create(BASE + slug);
        this.title = title;
    }

    public HttpStatus status() {
        return status;
    }

    /** A fresh problem of this type; {@code detail} must not echo secrets or whole request bodies. */
    public ProblemDetail problem(String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setType(type);
        problem.setTitle(title);
        return problem;
    }

    /** The problem as an exception Spring MVC answers with; for problems that are not stored for a key. */
    public ProviderProblemException exception(String detail) {
        return new ProviderProblemException(this, problem(detail));
    }
}
