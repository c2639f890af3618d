package dev.onceonly.spring.boot.web;

import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyException;
import dev.onceonly.RequestInProgressException;
import dev.onceonly.spring.boot.OnceOnlyProperties;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.json.ProblemDetailJacksonMixin;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes RFC 9457 problem details ({@code application/problem+json}) with a stable {@code type} per problem:
 * the base URI plus the exception's {@link IdempotencyException#problemType() slug}. The detail names the rule
 * broken, never the request body or a secret; no stack trace is ever written. Bodies are Spring's
 * {@link ProblemDetail} written by the application's JSON mapper.
 */
final class ProblemResponses {

    /** Status and title of each problem type; a reused key's status is configured. */
    private record Kind(int status, String title) {
    }

    private static final Kind BAD_REQUEST = new Kind(400, "Bad request");
    private static final Map<String, Kind> KINDS = Map.ofEntries(
            Map.entry("missing-idempotency-key", new Kind(400, "Idempotency-Key header missing")),
            Map.entry("invalid-idempotency-key", new Kind(400, "Invalid Idempotency-Key header")),
            Map.entry("malformed-request-body", new Kind(400, "Malformed request body")),
            Map.entry("request-rejected", new Kind(400, "Request rejected")),
            Map.entry("request-body-too-large", new Kind(413, "Request body too large")),
            Map.entry("unsupported-content-encoding", new Kind(415, "Content-Encoding not supported")),
            Map.entry("unsupported-charset", new Kind(415, "Charset not supported")),
            Map.entry("unsupported-multipart", new Kind(415, "Multipart body not supported")),
            Map.entry("idempotency-key-reused", new Kind(422, "Idempotency-Key reused with a different request")),
            Map.entry("request-in-progress", new Kind(409, "A request with this Idempotency-Key is in progress")),
            Map.entry("idempotency-store-unavailable", new Kind(503, "Idempotency store unavailable")),
            Map.entry("server-busy", new Kind(503, "Server too busy")),
            Map.entry("authentication-required", new Kind(401, "Authentication required")),
            Map.entry("owner-unresolvable", new Kind(403, "The request's owner cannot own idempotency keys")),
            Map.entry("operation-not-found", new Kind(404, "Operation not found")),
            Map.entry("asynchronous-handler", new Kind(500, "Idempotent handler answered asynchronously")),
            Map.entry("response-too-large", new Kind(500, "Response too large to hold back")),
            Map.entry("handler-left-transaction", new Kind(500, "Idempotent handler left its transaction")));

    private final JsonMapper json;
    private final URI typeBase;
    private final int keyReusedStatus;
    private final Duration retryAfter;
    private final String authenticationChallenge;

    /**
     * @param json the application's mapper; {@link ProblemDetail}'s properties are written as top-level members
     * @param authenticationChallenge the {@code WWW-Authenticate} value of a 401
     */
    ProblemResponses(JsonMapper json, URI typeBase, int keyReusedStatus, Duration retryAfter,
            String authenticationChallenge) {
        this.json = json.rebuild().addMixIn(ProblemDetail.class, ProblemDetailJacksonMixin.class).build();
        this.typeBase = typeBase;
        this.keyReusedStatus = keyReusedStatus;
        this.retryAfter = retryAfter;
        this.authenticationChallenge = authenticationChallenge;
    }

    /** Problems as configured, written with the application's JSON mapper, or a default one if it has none. */
    static ProblemResponses of(OnceOnlyProperties properties, IdempotencyEngine engine,
            ObjectProvider<JsonMapper> json) {
        OnceOnlyProperties.Http http = properties.http();
        return new ProblemResponses(json.getIfAvailable(JsonMapper::new), http.problemTypeBase(),
                http.keyReusedStatus(), engine.retryAfter(), http.authenticationChallenge());
    }

    /** The status a problem type is answered with. */
    int statusOf(String problemType) {
        return problemType.equals("idempotency-key-reused") ? keyReusedStatus
                : KINDS.getOrDefault(problemType, BAD_REQUEST).status();
    }

    /** A problem as a whole response, for any server: status, headers (the content type among them) and body. */
    record Rendered(int status, Map<String, String> headers, byte[] body) {
    }

    void write(HttpServletResponse response, IdempotencyException problem, String instance) throws IOException {
        write(response, render(problem, instance));
    }

    void write(HttpServletResponse response, String problemType, @Nullable String detail, @Nullable Duration hint,
            String instance) throws IOException {
        write(response, render(problemType, detail, hint, instance));
    }

    private static void write(HttpServletResponse response, Rendered rendered) throws IOException {
        response.resetBuffer();
        response.setStatus(rendered.status());
        rendered.headers().forEach((name, value) -> {
            // Through its own setter, which a wrapping response (the held-back buffer) keeps apart.
            if (name.equals(HttpHeaders.CONTENT_TYPE)) {
                response.setContentType(value);
            } else {
                response.setHeader(name, value);
            }
        });
        response.setContentLength(rendered.body().length);
        response.getOutputStream().write(rendered.body());
    }

    Rendered render(IdempotencyException problem, String instance) {
        Duration hint = switch (problem) {
            case RequestInProgressException inProgress -> inProgress.retryAfter();
            default -> "idempotency-store-unavailable".equals(problem.problemType())
                    || "server-busy".equals(problem.problemType()) ? retryAfter : null;
        };
        return render(problem.problemType(), problem.getMessage(), hint, instance);
    }

    /** A problem Spring made of an exception (an {@code ErrorResponse}'s body), written like ours. */
    Rendered render(ProblemDetail problem) {
        return new Rendered(problem.getStatus(), Map.of(HttpHeaders.CONTENT_TYPE,
                MediaType.APPLICATION_PROBLEM_JSON_VALUE), json.writeValueAsBytes(problem));
    }

    Rendered render(String problemType, @Nullable String detail, @Nullable Duration hint, String instance) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatusCode.valueOf(statusOf(problemType)),
                detail);
        problem.setType(typeBase.resolve(problemType));
        problem.setTitle(KINDS.getOrDefault(problemType, BAD_REQUEST).title());
        problem.setInstance(instance(instance));
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(HttpHeaders.CONTENT_TYPE, MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        headers.put(HttpHeaders.CACHE_CONTROL, "no-store");
        if (hint != null) {
            headers.put(HttpHeaders.RETRY_AFTER, Long.toString(Math.max(1, (hint.toMillis() + 999) / 1000)));
        }
        if ("unsupported-content-encoding".equals(problemType)) {
            // RFC 9110, 15.5.16: a 415 for a content coding says which codings are accepted.
            headers.put(HttpHeaders.ACCEPT_ENCODING, "identity");
        }
        if (problem.getStatus() == 401) {
            headers.put(HttpHeaders.WWW_AUTHENTICATE, authenticationChallenge);
        }
        return new Rendered(problem.getStatus(), headers, json.writeValueAsBytes(problem));
    }

    /** Writes {@code problem} as the whole response: status, content type, length and body. */
    void send(HttpServletResponse response, ProblemDetail problem) throws IOException {
        byte[] body = json.writeValueAsBytes(problem);
        response.setStatus(problem.getStatus());
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
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
