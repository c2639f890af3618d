package dev.onceonly.crypto;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.StoredResponse;
import dev.onceonly.internal.ReplayCache;
import dev.onceonly.spi.CachedOutcome;
import dev.onceonly.spi.OutcomeCache;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Outcomes reach the cache beneath encrypted and come back decrypted; anything else there is no answer. */
class EncryptingOutcomeCacheTest {

    private static final byte[] KEY = filled(7);
    private static final EncryptionKeys KEYS = EncryptionKeys.of("k1", Map.of("k1", KEY));

    private final ReplayCache beneath = new ReplayCache(Clock.systemUTC(), Duration.ofMinutes(1), 1 << 20);
    private final EncryptingOutcomeCache cache = new EncryptingOutcomeCache(beneath, KEYS);
    private final IdempotencyScope scope = new IdempotencyScope("alice", "create-order",
            IdempotencyKey.of(UUID.randomUUID().toString()));
    private final Fingerprint fingerprint = Fingerprint.ofDigest(filled(3));
    private final StoredResponse response = StoredResponse.of(201, Map.of("Location", List.of("/api/orders/7")),
            "{\"card\":\"4242\"}".getBytes(StandardCharsets.UTF_8), "7");
    private final Instant expiresAt = Instant.now().plusSeconds(60);

    @Test
    void theCacheBeneathHoldsOnlyCiphertextAndTheOutcomeComesBackWhole() {
        cache.remember(scope, new CachedOutcome(fingerprint, response, expiresAt));

        CachedOutcome held = beneath.get(scope);
        assertThat(held).isNotNull();
        assertThat(held.response().bodyAsString()).doesNotContain("4242");
        assertThat(held.response().headers()).doesNotContainKey("Location");
        assertThat(cache.enter(scope, fingerprint, false))
                .isEqualTo(new OutcomeCache.Finished(new CachedOutcome(fingerprint, response, expiresAt)));
    }

    @Test
    void aPlaintextOrUndecryptableOutcomeBeneathIsNoAnswer() {
        beneath.remember(scope, new CachedOutcome(fingerprint, response, expiresAt));
        assertThat(cache.enter(scope, fingerprint, false)).isEqualTo(OutcomeCache.Unknown.INSTANCE);

        new EncryptingOutcomeCache(beneath, EncryptionKeys.of("k2", Map.of("k2", filled(9))))
                .remember(scope, new CachedOutcome(fingerprint, response, expiresAt));
        assertThat(cache.enter(scope, fingerprint, false)).isEqualTo(OutcomeCache.Unknown.INSTANCE);
    }

    private static byte[] filled(int value) {
        byte[] bytes = new byte[EncryptionKeys.KEY_LENGTH];
        Arrays.fill(bytes, (byte) value);
        return bytes;
    }
}
