package dev.onceonly.spring.boot.admin;

import dev.onceonly.StoredResponse;
import dev.onceonly.spi.IdempotencyRecord;
import java.time.Instant;
import java.util.HexFormat;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * What the endpoint shows of a record: its audit fields, never its stored body or headers (which can hold personal
 * data; their size is shown). The key is the key as stored: with digest-only keys, its digest.
 *
 * @param status the stored HTTP status; {@code null} while running, after a retryable failure, or for an outcome
 *     without one (a consumer's)
 * @param bodyBytes the size of the stored body; {@code null} unless finished, and for a response stored encrypted
 *     (whose size as stored is the ciphertext's)
 */
public record RecordView(String owner, String operation, String key, String state, int attempt, int failures,
        String fingerprint, @Nullable Integer status, @Nullable String resourceId, @Nullable Integer bodyBytes,
        @Nullable String leaseExpiresAt, @Nullable String nextAttemptAt, String createdAt, String updatedAt,
        String expiresAt) implements OperationResponseBody {

    static RecordView of(IdempotencyRecord record) {
        StoredResponse response = record.response();
        return new RecordView(record.scope().owner(), record.scope().operation(), record.scope().key().value(),
                record.state().name(), record.attempt(), record.failures(),
                HexFormat.of().formatHex(record.fingerprint().digest()),
                response != null && response.hasStatus() ? response.status() : null,
                response == null ? null : response.resourceId(),
                response == null || response.isSealed() ? null : response.bodyLength(),
                text(record.leaseExpiresAt()), text(record.nextAttemptAt()), record.createdAt().toString(),
                record.updatedAt().toString(), record.expiresAt().toString());
    }

    private static @Nullable String text(@Nullable Instant instant) {
        return instant == null ? null : instant.toString();
    }
}
