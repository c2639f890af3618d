package dev.onceonly.spring.boot.web;

import dev.onceonly.IdempotencyException;
import dev.onceonly.RequestInProgressException;
import dev.onceonly.internal.JsonStrings;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Writes RFC 9457 problem details ({@code application/problem+json}) with a stable {@code type} per problem:
 * the base URI plus the exception's {@link IdempotencyException#problemType() slug}. The detail names the rule
 * broken, never the request body or a secret; no stack trace is ever written.
 */
final class ProblemResponses {

    private static final Map<String, String> TITLES = Map.ofEntries(
            Map.entry("missing-idempotency-key", "Idempotency-Key header missing"),
            Map.entry("invalid-idempotency-key", "Invalid Idempotency-Key header"),
            Map.entry("malformed-request-body", "Malformed request body"),
            Map.entry("request-body-too-large", "Request body too large"),
            Map.entry("unsupported-content-encoding", "Content-Encoding not supported"),
            Map.entry("unsupported-charset", "Charset not supported"),
            Map.entry("idempotency-key-reused", "Idempotency-Key reused with a different request"),
            Map.entry("request-in-progress", "A request with this Idempotency-Key is in progress"),
            Map.entry("idempotency-store-unavailable", "Idempotency store unavailable"),
            Map.entry("authentication-required", "Authentication required"),
            Map.entry("asynchronous-handler", "Idempotent handler answered asynchronously"));

    private final URI typeBase;
    private final int keyReusedStatus;
    private final Duration retryAfter;

    ProblemResponses(URI typeBase, int keyReusedStatus, Duration retryAfter) {
        this.typeBase = typeBase;
        this.keyReusedStatus = keyReusedStatus;
        this.retryAfter = retryAfter;
    }

    /** The status a problem type is answered with. */
    int statusOf(String problemType) {
        return switch (problemType) {
            case "idempotency-key-reused" -> keyReusedStatus;
            case "request-in-progress" -> 409;
            case "idempotency-store-unavailable" -> 503;
            case "request-body-too-large" -> 413;
            case "unsupported-content-encoding", "unsupported-charset" -> 415;
            case "asynchronous-handler" -> 500;
            case "authentication-required" -> 401;
            default -> 400;
        };
    }

    void write(HttpServletResponse response, IdempotencyException problem, String instance) throws IOException {
        Duration hint = switch (problem) {
            case RequestInProgressException inProgress -> inProgress.retryAfter();
            default -> "idempotency-store-unavailable".equals(problem.problemType()) ? retryAfter : null;
        };
        write(response, problem.problemType(), problem.getMessage(), hint, instance);
    }

    void write(HttpServletResponse response, String problemType, @Nullable String detail, @Nullable Duration hint,
            String instance) throws IOException {
        int status = statusOf(problemType);
        StringBuilder json = new StringBuilder(256).append('{');
        member(json, "type", typeBase.resolve(problemType).toString()).append(',');
        member(json, "title", TITLES.getOrDefault(problemType, "Bad request")).append(',');
        json.append("\"status\":").append(status);
        if (detail != null) {
            member(json.append(','), "detail", detail);
        }
        member(json.append(','), "instance", instance);
        json.append('}');
        byte[] body = json.toString().getBytes(StandardCharsets.UTF_8);

        response.resetBuffer();
        response.setStatus(status);
        response.setContentType("application/problem+json");
        response.setHeader("Cache-Control", "no-store");
        if (hint != null) {
            response.setHeader("Retry-After", Long.toString(Math.max(1, (hint.toMillis() + 999) / 1000)));
        }
        if ("unsupported-content-encoding".equals(problemType)) {
            // RFC 9110, 15.5.16: a 415 for a content coding says which codings are accepted.
            response.setHeader("Accept-Encoding", "identity");
        }
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    private static StringBuilder member(StringBuilder json, String name, String value) {
        JsonStrings.quote(name, json).append(':');
        return JsonStrings.quote(value, json);
    }
}
