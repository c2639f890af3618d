package dev.onceonly.redis;

import java.util.Objects;

/** The rule for what OnceOnly's Redis keys start with: short, and no braces, which would break the hash tags. */
final class KeyPrefix {

    private KeyPrefix() {
    }

    static String require(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        if (prefix.isBlank() || prefix.length() > 64 || prefix.contains("{") || prefix.contains("}")) {
            throw new IllegalArgumentException("prefix must be 1 to 64 characters without braces");
        }
        return prefix;
    }
}
