package dev.onceonly;

import dev.onceonly.internal.JsonStrings;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** The RFC 9457 problems the engine itself stores as a key's final outcome. */
final class StoredProblems {

    private StoredProblems() {
    }

    /** A leased record whose last allowed attempt threw instead of returning a result. */
    static StoredResponse attemptsExhausted(IdempotencyScope scope) {
        return problem("attempts-exhausted", "Attempts exhausted", "Operation '" + scope.operation()
                + "' failed on every attempt allowed; it is not tried again for this key");
    }

    /** Work that ran, and so may have taken effect, whose result could not be encoded or classified. */
    static StoredResponse outcomeNotStorable(IdempotencyScope scope) {
        return problem("outcome-not-storable", "Outcome not storable", "Operation '" + scope.operation()
                + "' ran, but its result could not be stored; it is not run again for this key");
    }

    private static StoredResponse problem(String type, String title, String detail) {
        StringBuilder body = new StringBuilder("{\"type\":\"https://onceonly.dev/problems/").append(type)
                .append("\",\"title\":\"").append(title).append("\",\"status\":500,\"detail\":");
        JsonStrings.quote(detail, body).append('}');
        return StoredResponse.of(500, Map.of("Content-Type", List.of("application/problem+json")),
                body.toString().getBytes(StandardCharsets.UTF_8), null);
    }
}
