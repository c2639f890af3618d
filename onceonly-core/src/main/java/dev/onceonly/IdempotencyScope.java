package dev.onceonly;

import dev.onceonly.internal.PartsDigest;
import java.util.Base64;
import java.util.Objects;

/**
 * Where a key is unique: the same key under two owners or two operations names two independent records.
 *
 * @param owner who sent the request: the authenticated principal (and tenant), never a client-chosen header
 * @param operation a stable name of the operation, such as {@code create-order} or {@code POST /api/orders}
 * @param key the client's idempotency key
 */
public record IdempotencyScope(String owner, String operation, IdempotencyKey key) {

    /** The longest owner or operation a store must hold. */
    public static final int MAX_NAME_LENGTH = 255;

    public IdempotencyScope {
        requireName("owner", owner);
        requireName("operation", operation);
        Objects.requireNonNull(key, "key");
    }

    public static IdempotencyScope of(String owner, String operation, IdempotencyKey key) {
        return new IdempotencyScope(owner, operation, key);
    }

    /**
     * A stable id of this scope, for names derived from it that must be short and safe anywhere (a task's id, a
     * cache key): 43 base64url characters of a SHA-256 over the owner, operation and key, each length-prefixed so
     * that no two scopes share one. Names no part of the scope in clear.
     */
    public String id() {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(PartsDigest.sha256(owner, operation,
                key.value()));
    }

    private static void requireName(String what, String value) {
        Objects.requireNonNull(value, what);
        if (value.isBlank() || value.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException(what + " must be 1 to " + MAX_NAME_LENGTH
                    + " characters and not blank, but is " + value.length() + " characters long");
        }
    }
}
