package dev.onceonly.internal;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.StoredResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Finished outcomes kept in this process for a short while, so that hot replays (a retry storm, a client that
 * polls) need no store round trip.
 *
 * <p>Safe because a finished record never changes before it expires: only PROCESSING and FAILED_RETRYABLE records
 * are taken over, and only expired ones are replaced or purged. An entry therefore never outlives its record's
 * {@code expiresAt}, nor the configured time to live. The cache is bounded by the bytes of the bodies it holds;
 * when full, expired entries go first, then any. Thread-safe.
 */
public final class ReplayCache {

    /** A finished outcome and the request it answers. */
    public record Entry(Fingerprint fingerprint, StoredResponse response, Instant expiresAt) {
    }

    private final Map<IdempotencyScope, Entry> entries = new ConcurrentHashMap<>();
    private final AtomicLong bytes = new AtomicLong();
    private final Clock clock;
    private final Duration timeToLive;
    private final long maxBytes;

    public ReplayCache(Clock clock, Duration timeToLive, long maxBytes) {
        this.clock = clock;
        this.timeToLive = timeToLive;
        this.maxBytes = maxBytes;
    }

    /** The live entry of {@code scope}, if any. */
    public @Nullable Entry get(IdempotencyScope scope) {
        Entry entry = entries.get(scope);
        if (entry == null) {
            return null;
        }
        if (!clock.instant().isBefore(entry.expiresAt())) {
            remove(scope, entry);
            return null;
        }
        return entry;
    }

    /** Keeps a finished outcome until the earlier of its record's expiry and the time to live. */
    public void put(IdempotencyScope scope, Fingerprint fingerprint, StoredResponse response, Instant recordExpiresAt) {
        long size = size(response);
        if (size > maxBytes / 4) {
            return;
        }
        Instant now = clock.instant();
        Instant until = now.plus(timeToLive);
        Entry entry = new Entry(fingerprint, response, until.isBefore(recordExpiresAt) ? until : recordExpiresAt);
        if (!now.isBefore(entry.expiresAt())) {
            return;
        }
        makeRoom(size);
        Entry previous = entries.put(scope, entry);
        bytes.addAndGet(size - (previous == null ? 0 : size(previous.response())));
    }

    private void makeRoom(long size) {
        if (bytes.get() + size <= maxBytes) {
            return;
        }
        Instant now = clock.instant();
        entries.forEach((scope, entry) -> {
            if (!now.isBefore(entry.expiresAt())) {
                remove(scope, entry);
            }
        });
        for (Iterator<Map.Entry<IdempotencyScope, Entry>> it = entries.entrySet().iterator();
                it.hasNext() && bytes.get() + size > maxBytes; ) {
            Map.Entry<IdempotencyScope, Entry> victim = it.next();
            remove(victim.getKey(), victim.getValue());
        }
    }

    private void remove(IdempotencyScope scope, Entry entry) {
        if (entries.remove(scope, entry)) {
            bytes.addAndGet(-size(entry.response()));
        }
    }

    /** Body and a rough allowance for the rest of the entry. */
    private static long size(StoredResponse response) {
        return response.bodyLength() + 512L;
    }
}
