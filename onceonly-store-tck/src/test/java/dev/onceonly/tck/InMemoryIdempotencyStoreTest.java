package dev.onceonly.tck;

import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.IdempotencyStore;
import java.time.Clock;

class InMemoryIdempotencyStoreTest extends IdempotencyStoreContract {

    @Override
    protected IdempotencyStore createStore(Clock clock) {
        return new InMemoryIdempotencyStore();
    }
}
