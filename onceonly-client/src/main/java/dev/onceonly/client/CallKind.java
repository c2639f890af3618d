package dev.onceonly.client;

import java.util.Locale;
import java.util.Set;

/**
 * How a call is treated, from its method and whether it carries an {@code Idempotency-Key}.
 *
 * <p>Why three kinds: a keyed call is safe to repeat because the server deduplicates it by key, and only for it can
 * 409 mean "the first request with this key is still running": the protocol's {@code request-in-progress} answer,
 * which carries {@code Retry-After} and is never a replay. A 409 without {@code Retry-After}, or one replayed, is the
 * business answer of the first request (say {@code form-token-used}), final however often it is asked for. GET, HEAD, PUT, DELETE, OPTIONS and TRACE are
 * idempotent by HTTP semantics (RFC 9110, 9.2.2), so they are repeated without a key. Anything else (an unkeyed
 * method we know nothing about, such as a WebDAV or custom one) is sent once.
 */
enum CallKind {
    KEYED,
    IDEMPOTENT,
    ONCE;

    private static final Set<String> KEY_GENERATING_METHODS = Set.of("POST", "PATCH");
    private static final Set<String> IDEMPOTENT_METHODS = Set.of("GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE");
    // 501 and 505 describe the request rather than a passing state of the server, so they are not in the list.
    private static final Set<Integer> TRANSIENT_SERVER_ERRORS = Set.of(500, 502, 503, 504);

    static CallKind of(String method, boolean keyed) {
        if (keyed) {
            return KEYED;
        }
        return IDEMPOTENT_METHODS.contains(method.toUpperCase(Locale.ROOT)) ? IDEMPOTENT : ONCE;
    }

    /** Whether a call with this method gets a generated key when the caller gave none. */
    static boolean generatesKey(String method) {
        return KEY_GENERATING_METHODS.contains(method.toUpperCase(Locale.ROOT));
    }

    boolean mayRetry(AttemptOutcome outcome) {
        if (this == ONCE) {
            return false;
        }
        return switch (outcome) {
            case AttemptOutcome.Failed failed -> true;
            case AttemptOutcome.Answered answered -> {
                int status = answered.status();
                yield status == 429 || TRANSIENT_SERVER_ERRORS.contains(status)
                        || (this == KEYED && status == 409 && answered.retryAfter() != null && !answered.replayed());
            }
        };
    }
}
