package dev.onceonly;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of a request as it is stored and replayed: status, allow-listed headers, body bytes and the id of
 * the resource it created. Immutable; {@link #toString()} never prints the body.
 *
 * <p>An outcome that is not an HTTP response, such as a message consumer's "handled", has {@linkplain #NO_STATUS
 * no status} ({@link #result}): it is stored without one and always counts as a success.
 */
public final class StoredResponse {

    /** The status of an outcome that is not an HTTP response; stores keep no status for it. */
    public static final int NO_STATUS = 0;

    /**
     * The only header of a sealed response: one an encrypting store wrote, whose body is ciphertext that only a
     * store with its key opens. An engine that meets one (an instance not configured for encryption) refuses it
     * rather than replay ciphertext as the answer.
     */
    public static final String SEALED_HEADER = "OnceOnly-Encrypted";

    private final int status;
    private final Map<String, List<String>> headers;
    private final byte[] body;
    private final @Nullable String resourceId;

    private StoredResponse(int status, Map<String, List<String>> headers, byte[] body, @Nullable String resourceId) {
        this.status = status;
        this.headers = headers;
        this.body = body;
        this.resourceId = resourceId;
    }

    /**
     * @param status an HTTP status (100 to 599), or {@link #NO_STATUS} for an outcome that is not an HTTP response
     *     (always a success; use {@link #result})
     * @param headers header names to values, in the order they are to be replayed; names must be HTTP tokens,
     *     values must not contain CR, LF or NUL
     * @param body the body bytes, possibly empty
     * @param resourceId the id of the created resource, if any, for logs and look-ups (at most 255 characters)
     * @throws IllegalArgumentException if a value breaks these rules
     */
    public static StoredResponse of(int status, Map<String, List<String>> headers, byte[] body,
            @Nullable String resourceId) {
        if (status != NO_STATUS && (status < 100 || status > 599)) {
            throw new IllegalArgumentException("status must be 100 to 599 (or NO_STATUS), but is " + status);
        }
        if (resourceId != null && (resourceId.isEmpty() || resourceId.length() > 255)) {
            throw new IllegalArgumentException("resourceId must be 1 to 255 characters");
        }
        Map<String, List<String>> copy = new LinkedHashMap<>();
        headers.forEach((name, values) -> {
            requireToken(name);
            values.forEach(StoredResponse::requireFieldValue);
            copy.put(name, List.copyOf(values));
        });
        return new StoredResponse(status, Collections.unmodifiableMap(copy), body.clone(), resourceId);
    }

    /** A response with a status and a body only. */
    public static StoredResponse of(int status, byte[] body) {
        return of(status, Map.of(), body, null);
    }

    /**
     * The outcome of work that is not an HTTP request, such as a message consumer's: handled, with an optional
     * small result (possibly empty) that duplicates get back. No status is stored for it.
     */
    public static StoredResponse result(byte[] result) {
        return of(NO_STATUS, Map.of(), result, null);
    }

    private static void requireToken(String name) {
        Objects.requireNonNull(name, "header name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("header names must not be empty");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean tchar = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!tchar) {
                throw new IllegalArgumentException("header name is not an HTTP token at position " + (i + 1));
            }
        }
    }

    private static void requireFieldValue(String value) {
        Objects.requireNonNull(value, "header value");
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\r' || c == '\n' || c == 0) {
                throw new IllegalArgumentException("header values must not contain CR, LF or NUL");
            }
        }
    }

    /** The HTTP status, or {@link #NO_STATUS}. */
    public int status() {
        return status;
    }

    /** Whether this is an HTTP response: {@code false} for a {@link #result}. */
    public boolean hasStatus() {
        return status != NO_STATUS;
    }

    /** Unmodifiable, in replay order. */
    public Map<String, List<String>> headers() {
        return headers;
    }

    /** A copy of the body bytes. */
    public byte[] body() {
        return body.clone();
    }

    /** The body decoded as UTF-8. */
    public String bodyAsString() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** Whether this is a sealed response ({@link #SEALED_HEADER}): its body is ciphertext, not the answer. */
    public boolean isSealed() {
        return headers.containsKey(SEALED_HEADER);
    }

    public int bodyLength() {
        return body.length;
    }

    public @Nullable String resourceId() {
        return resourceId;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof StoredResponse that && status == that.status && headers.equals(that.headers)
                && Arrays.equals(body, that.body) && Objects.equals(resourceId, that.resourceId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(status, headers, Arrays.hashCode(body), resourceId);
    }

    @Override
    public String toString() {
        return "StoredResponse[status=" + status + ", headers=" + headers.keySet() + ", body=" + body.length
                + " bytes, resourceId=" + resourceId + "]";
    }
}
