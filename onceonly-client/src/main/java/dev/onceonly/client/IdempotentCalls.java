package dev.onceonly.client;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * The names and rules the clients share: the headers, the request attribute that carries an explicit key, key
 * validation, and reading whether an answer was a replay.
 *
 * <p>JDK types only, so that callers without Spring on the class path can use it; the Spring counterpart of
 * {@link #wasReplayed(HttpResponse)} is {@link IdempotencyKeyInterceptor#wasReplayed}. (An overload taking Spring's
 * {@code HttpHeaders} here would make javac demand Spring wherever this class is called.)
 */
public final class IdempotentCalls {

    /** The request header that carries the key. */
    public static final String KEY_HEADER = "Idempotency-Key";

    /** The response header a server sets to {@code true} when it replays the stored answer for a known key. */
    public static final String REPLAYED_HEADER = "Idempotent-Replayed";

    /**
     * The RestClient request attribute through which a caller passes its own key (a {@link String}), for example
     * a downstream key derived from a leased attempt: {@code restClient.post().attribute(KEY_ATTRIBUTE, key)}, or
     * {@code .attributes(IdempotentCalls.key(key))}, which validates it first.
     */
    public static final String KEY_ATTRIBUTE = "dev.onceonly.client.IdempotentCalls.key";

    static final int MAX_KEY_LENGTH = 255;

    private IdempotentCalls() {
    }

    /**
     * An attribute setter for {@code RestClient.RequestHeadersSpec#attributes} that makes the call use this key.
     *
     * @param key the key, validated by {@link #requireValidKey(String)}
     * @return a consumer that puts the key under {@link #KEY_ATTRIBUTE}
     * @throws IllegalArgumentException if the key is not valid
     */
    public static Consumer<Map<String, Object>> key(String key) {
        String valid = requireValidKey(key);
        return attributes -> attributes.put(KEY_ATTRIBUTE, valid);
    }

    /**
     * Checks a key: 1 to 255 visible ASCII characters ({@code !} to {@code ~}). Spaces are refused because
     * intermediaries trim and fold header values, which would change the key between attempts.
     *
     * @param key the key to check
     * @return the key
     * @throws IllegalArgumentException if it is null, empty, too long or has another character
     */
    public static String requireValidKey(@Nullable String key) {
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("An Idempotency-Key must not be empty");
        }
        if (key.length() > MAX_KEY_LENGTH) {
            throw new IllegalArgumentException(
                    "An Idempotency-Key has at most " + MAX_KEY_LENGTH + " characters, this one " + key.length());
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < '!' || c > '~') {
                // The position, not the key: a key may be derived from data the caller does not want in logs.
                throw new IllegalArgumentException(
                        "An Idempotency-Key has only visible ASCII characters; character " + i + " is not one");
            }
        }
        return key;
    }

    /**
     * Whether the server answered with a stored response rather than acting again.
     *
     * @param response an answer from the JDK HttpClient
     * @return true if it carries {@code Idempotent-Replayed: true}
     */
    public static boolean wasReplayed(HttpResponse<?> response) {
        return isTrue(response.headers().firstValue(REPLAYED_HEADER).orElse(null));
    }

    static boolean isTrue(@Nullable String headerValue) {
        return headerValue != null && headerValue.trim().equalsIgnoreCase("true");
    }

    /**
     * The key a call is sent with: the one the caller gave (in the request's header or explicitly; both must agree),
     * else a generated one for POST and PATCH, else none.
     */
    static @Nullable String resolveKey(
            String method, List<String> headerValues, @Nullable String explicit, Supplier<String> generator) {
        if (headerValues.size() > 1) {
            throw new IllegalArgumentException("A request carries at most one Idempotency-Key header, this one "
                    + headerValues.size());
        }
        String inHeader = headerValues.isEmpty() ? null : requireValidKey(headerValues.getFirst());
        if (explicit != null) {
            requireValidKey(explicit);
            if (inHeader != null && !inHeader.equals(explicit)) {
                throw new IllegalArgumentException(
                        "The request's Idempotency-Key header and the key passed for it differ");
            }
            return explicit;
        }
        if (inHeader != null) {
            return inHeader;
        }
        return CallKind.generatesKey(method) ? generator.get() : null;
    }
}
