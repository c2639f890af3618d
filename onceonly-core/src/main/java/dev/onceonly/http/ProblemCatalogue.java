package dev.onceonly.http;

import dev.onceonly.IdempotencyException;
import dev.onceonly.RequestInProgressException;
import java.net.URI;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The protocol's problems (RFC 9457), one catalogue for every transport: the stable {@code type} of each (the base
 * URI and the exception's {@link IdempotencyException#problemType() slug}), its status and title, and the headers it
 * is answered with. The detail names the rule broken, never the request's data. Transports write the body.
 */
public final class ProblemCatalogue {

    /** The media type of every problem. */
    public static final String MEDIA_TYPE = "application/problem+json";

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
            Map.entry("idempotency-key-reused", new Kind(422, "Idempotency key reused with a different request")),
            Map.entry("request-in-progress", new Kind(409, "A request with this idempotency key is in progress")),
            Map.entry("idempotency-store-unavailable", new Kind(503, "Idempotency store unavailable")),
            Map.entry("server-busy", new Kind(503, "Server too busy")),
            Map.entry("authentication-required", new Kind(401, "Authentication required")),
            Map.entry("owner-unresolvable", new Kind(403, "The request's owner cannot own idempotency keys")),
            Map.entry("operation-not-found", new Kind(404, "Operation not found")),
            Map.entry("asynchronous-handler", new Kind(500, "Idempotent handler answered asynchronously")),
            Map.entry("response-too-large", new Kind(500, "Response too large to hold back")),
            Map.entry("handler-left-transaction", new Kind(500, "Idempotent handler left its transaction")));

    private final URI typeBase;
    private final int keyReusedStatus;
    private final Duration retryAfter;
    private final String authenticationChallenge;

    /**
     * @param typeBase what every {@code type} begins with, an absolute URI ending in {@code /}
     * @param keyReusedStatus 422 (the IETF draft) or 409, for a key reused with another request
     * @param retryAfter the {@code Retry-After} of an unreachable store or a busy server
     * @param authenticationChallenge the {@code WWW-Authenticate} value of a 401, such as {@code Bearer}
     * @throws IllegalArgumentException if a value is none of those
     */
    public ProblemCatalogue(URI typeBase, int keyReusedStatus, Duration retryAfter, String authenticationChallenge) {
        if (!typeBase.isAbsolute() || !typeBase.toString().endsWith("/")) {
            throw new IllegalArgumentException("The problem type base must be an absolute URI ending in '/', not "
                    + typeBase);
        }
        if (keyReusedStatus != 422 && keyReusedStatus != 409) {
            throw new IllegalArgumentException("A reused key's status must be 422 or 409, not " + keyReusedStatus);
        }
        this.typeBase = typeBase;
        this.keyReusedStatus = keyReusedStatus;
        this.retryAfter = Objects.requireNonNull(retryAfter, "retryAfter");
        this.authenticationChallenge = Objects.requireNonNull(authenticationChallenge, "authenticationChallenge");
    }

    /**
     * A problem to answer: its status, {@code type}, title and detail, and every header it goes with (its media type
     * among them).
     */
    public record Problem(int status, URI type, String title, @Nullable String detail, Map<String, String> headers) {

        public Problem {
            headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers));
        }
    }

    /** The problem {@code refusal} is answered with. */
    public Problem of(IdempotencyException refusal) {
        Duration hint = switch (refusal) {
            case RequestInProgressException inProgress -> inProgress.retryAfter();
            default -> "idempotency-store-unavailable".equals(refusal.problemType())
                    || "server-busy".equals(refusal.problemType()) ? retryAfter : null;
        };
        return of(refusal.problemType(), refusal.getMessage(), hint);
    }

    /**
     * The problem of {@code type}.
     *
     * @param detail what rule was broken, without the request's data
     * @param retryAfter when a retry may succeed, {@code null} if none is suggested
     */
    public Problem of(String type, @Nullable String detail, @Nullable Duration retryAfter) {
        int status = statusOf(type);
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", MEDIA_TYPE);
        headers.put("Cache-Control", "no-store");
        if (retryAfter != null) {
            headers.put("Retry-After", Long.toString(Math.max(1, (retryAfter.toMillis() + 999) / 1000)));
        }
        if ("unsupported-content-encoding".equals(type)) {
            // RFC 9110, 15.5.16: a 415 for a content coding says which codings are accepted.
            headers.put("Accept-Encoding", "identity");
        }
        if (status == 401) {
            headers.put("WWW-Authenticate", authenticationChallenge);
        }
        return new Problem(status, typeBase.resolve(type), KINDS.getOrDefault(type, BAD_REQUEST).title(), detail,
                headers);
    }

    /** Every type this catalogue knows; each has its page in the documentation, where its URI resolves. */
    public static Set<String> types() {
        return KINDS.keySet();
    }

    /** The status a problem type is answered with: 400 for a type this catalogue does not know. */
    public int statusOf(String type) {
        return type.equals("idempotency-key-reused") ? keyReusedStatus : KINDS.getOrDefault(type, BAD_REQUEST).status();
    }
}
