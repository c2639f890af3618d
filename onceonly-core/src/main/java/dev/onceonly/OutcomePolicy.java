package dev.onceonly;

import java.util.Map;

/**
 * Decides, from a result's status, whether it is stored and replayed or whether the key may be retried.
 *
 * <p>{@link #standard()} follows the protocol's defaults:
 * <ul>
 *   <li>1xx to 3xx: {@link Decision#SUCCEEDED}, stored and replayed;</li>
 *   <li>4xx: {@link Decision#FAILED_FINAL}, stored and replayed (a deterministic rejection such as 400, 404, 410,
 *       422 or "insufficient stock" stays rejected), except</li>
 *   <li>401, 403, 407 (authentication is not the request's outcome) and 408, 425, 429 (transient), and all 5xx:
 *       {@link Decision#RETRYABLE}, nothing stored, the same key may run again.</li>
 * </ul>
 * Exceptions thrown by the work are always retryable. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface OutcomePolicy {

    /** What happens to a result. */
    enum Decision {
        /** Stored as SUCCEEDED and replayed. */
        SUCCEEDED,
        /** Stored as FAILED_FINAL and replayed. */
        FAILED_FINAL,
        /** Not stored; the key may be retried. */
        RETRYABLE
    }

    Decision classify(int status);

    /** What happens to {@code response}: a {@linkplain StoredResponse#hasStatus() status-less} one succeeded. */
    default Decision classify(StoredResponse response) {
        return response.hasStatus() ? classify(response.status()) : Decision.SUCCEEDED;
    }

    /** The protocol's defaults, described above. */
    static OutcomePolicy standard() {
        return status -> {
            if (status < 400) {
                return Decision.SUCCEEDED;
            }
            return switch (status) {
                case 401, 403, 407, 408, 425, 429 -> Decision.RETRYABLE;
                default -> status < 500 ? Decision.FAILED_FINAL : Decision.RETRYABLE;
            };
        };
    }

    /**
     * This policy with some statuses decided otherwise, e.g. {@code standard().overriding(Map.of(409,
     * Decision.RETRYABLE))} for an API whose 409 means "try again".
     */
    default OutcomePolicy overriding(Map<Integer, Decision> decisions) {
        Map<Integer, Decision> copy = Map.copyOf(decisions);
        return status -> copy.getOrDefault(status, classify(status));
    }
}
