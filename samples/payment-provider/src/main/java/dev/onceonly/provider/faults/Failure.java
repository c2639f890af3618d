package dev.onceonly.provider.faults;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Optional;

/** A failure one new charge request meets. */
public enum Failure {
    /** The charge is made, then the answer is held for 30 s: longer than any client waits. */
    TIMEOUT("timeout"),
    /** 503 with {@code Retry-After}; no charge is made and the key is not kept, so a retry runs anew. */
    RETRYABLE("retryable"),
    /** A declined charge is recorded and its 402 is stored for the key, like any outcome. */
    DECLINE("decline"),
    /** The charge is made and its response stored for the key, then the connection is closed unanswered. */
    DROP_AFTER_COMMIT("drop-after-commit");

    private final String wireName;

    Failure(String wireName) {
        this.wireName = wireName;
    }

    @JsonValue
    public String wireName() {
        return wireName;
    }

    public static Optional<Failure> ofWireName(String name) {
        for (Failure failure : values()) {
            if (failure.wireName.equals(name)) {
                return Optional.of(failure);
            }
        }
        return Optional.empty();
    }
}
