package dev.onceonly.tck;

import dev.onceonly.crypto.EncryptingIdempotencyStore;
import dev.onceonly.crypto.EncryptionKeys;
import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.IdempotencyStore;
import java.time.Clock;
import java.util.Map;

/** The encrypting decorator keeps every promise of the store it wraps. */
class EncryptingInMemoryIdempotencyStoreTest extends IdempotencyStoreContract {

    private static final EncryptionKeys KEYS = EncryptionKeys.of("k1", Map.of("k1", new byte[32]));

    @Override
    protected IdempotencyStore createStore(Clock clock) {
        return new EncryptingIdempotencyStore(new InMemoryIdempotencyStore(), KEYS);
    }
}
