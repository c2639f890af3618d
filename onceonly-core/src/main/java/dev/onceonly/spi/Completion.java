package dev.onceonly.spi;

import dev.onceonly.StoredResponse;
import java.time.Instant;
import java.util.Objects;

/**
 * How an attempt finished, for {@link IdempotencyStore#complete}.
 *
 * @param state {@link RecordState#SUCCEEDED} or {@link RecordState#FAILED_FINAL}
 * @param response what every duplicate is answered with from now on
 * @param expiresAt from when the record may be purged
 */
public record Completion(RecordState state, StoredResponse response, Instant expiresAt) {

    public Completion {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(response, "response");
        Objects.requireNonNull(expiresAt, "expiresAt");
        if (!state.isTerminal()) {
            throw new IllegalArgumentException("a completion is SUCCEEDED or FAILED_FINAL, not " + state);
        }
    }
}
