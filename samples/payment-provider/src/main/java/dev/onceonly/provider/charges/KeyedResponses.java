package dev.onceonly.provider.charges;

import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * What the provider remembers per {@code Idempotency-Key}: the request, and once answered, the answer. In memory
 * (a {@link ConcurrentHashMap}) and never expired: this is a simulator. Thread-safe; each method is atomic.
 */
@Component
class KeyedResponses {

    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();

    /** What a request under a key finds. */
    sealed interface Claim {
    }

    /** The key is new: the caller runs the request and then completes or releases the key. */
    record Claimed() implements Claim {
    }

    /** The key has an answer for the same request. */
    record Replay(StoredResponse response) implements Claim {
    }

    /** The same request runs now under the key. */
    record InProgress() implements Claim {
    }

    /** The key was used for a different request. */
    record Reused() implements Claim {
    }

    private record Entry(ChargeRequest request, @Nullable StoredResponse response) {
    }

    Claim claim(IdempotencyKey key, ChargeRequest request) {
        Entry entry = new Entry(request, null);
        Entry existing = entries.putIfAbsent(key.value(), entry);
        if (existing == null) {
            return new Claimed();
        }
        if (!existing.request().equals(request)) {
            return new Reused();
        }
        return existing.response() == null ? new InProgress() : new Replay(existing.response());
    }

    /** Keeps the answer of a claimed key; later requests with the same body get it replayed. */
    void complete(IdempotencyKey key, ChargeRequest request, StoredResponse response) {
        entries.put(key.value(), new Entry(request, response));
    }

    /** Forgets a claimed key that has no answer, so that a retry runs anew. */
    void release(IdempotencyKey key) {
        entries.computeIfPresent(key.value(), (k, entry) -> entry.response() == null ? null : entry);
    }
}
