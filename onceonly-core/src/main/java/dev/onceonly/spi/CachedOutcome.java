package dev.onceonly.spi;

import dev.onceonly.Fingerprint;
import dev.onceonly.StoredResponse;
import java.time.Instant;
import java.util.Objects;

/**
 * A durable outcome as a cache holds it.
 *
 * @param fingerprint the fingerprint its record holds, to refuse a reused key without the store
 * @param response what is replayed
 * @param expiresAt when its record expires; no cache may keep it longer
 */
public record CachedOutcome(Fingerprint fingerprint, StoredResponse response, Instant expiresAt) {

    public CachedOutcome {
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(response, "response");
        Objects.requireNonNull(expiresAt, "expiresAt");
    }
}
