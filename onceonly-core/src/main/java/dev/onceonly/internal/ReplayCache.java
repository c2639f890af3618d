package dev.onceonly.internal;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.StoredResponse;
import dev.onceonly.spi.CachedOutcome;
import dev.onceonly.spi.OutcomeCache;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Finished outcomes kept in this process for a short while, so that hot replays (a retry storm, a client that
 * polls) need no store round trip.
 *
 * <p>Safe because a finished record never changes before it expires: only PROCESSING and FAILED_RETRYABLE records
 * are taken over, and only expired ones are replaced or purged. An entry therefore never outlives its record's
 * {@code expiresAt}, nor the configured time to live.
 *
 * <p>How the bound holds:
 * <ol>
 *   <li>Reads take no lock. A read that meets an expired entry removes it.</li>
 *   <li>Puts take turns on a lock. A put first sweeps: it drops entries from the oldest on while they have
 *       expired. It then evicts the oldest entries until the new one fits, and only then counts its bytes and
 *       makes it visible. Removals outside the lock only lower the count, so the held bytes never exceed the
 *       budget, however many threads put at once.</li>
 *   <li>Every entry expires within the time to live, so by the first put after an entry's time to live no
 *       expired entry is left older than it. Each entry is swept or evicted once, which keeps puts amortised
 *       O(1); the cache runs no thread of its own.</li>
 * </ol>
 * Bytes are counted as the body plus a fixed allowance per entry. Thread-safe.
 */
public final class ReplayCache implements OutcomeCache {

    /** An entry as held, with the sequence number of its put (which alone tells slots apart) and its size. */
    private record Slot(long sequence, CachedOutcome entry, long size) {
    }

    /**
     * A put, in order, oldest first. It names its slot by sequence number rather than holding it, so that a slot
     * a read removed or a later put replaced keeps no body alive here.
     */
    private record Admission(IdempotencyScope scope, long sequence) {
    }

    private final Map<IdempotencyScope, Slot> slots = new ConcurrentHashMap<>();
    /** Scopes whose attempt running in this process has duplicates waiting for it here. */
    private final Set<IdempotencyScope> awaited = ConcurrentHashMap.newKeySet();
    private final AtomicLong bytes = new AtomicLong();
    private final ReentrantLock putLock = new ReentrantLock();
    /** Guarded by {@link #putLock}. */
    private final ArrayDeque<Admission> admissions = new ArrayDeque<>();
    /** Guarded by {@link #putLock}. */
    private long puts;
    private final Clock clock;
    private final Duration timeToLive;
    private final long maxBytes;

    public ReplayCache(Clock clock, Duration timeToLive, long maxBytes) {
        this.clock = clock;
        this.timeToLive = timeToLive;
        this.maxBytes = maxBytes;
    }

    /** The live entry of {@code scope}, if any. */
    public @Nullable CachedOutcome get(IdempotencyScope scope) {
        Slot slot = slots.get(scope);
        if (slot == null) {
            return null;
        }
        if (!clock.instant().isBefore(slot.entry().expiresAt())) {
            remove(scope, slot);
            return null;
        }
        return slot.entry();
    }

    /**
     * Keeps a finished outcome until the earlier of its record's expiry and the time to live; a body larger
     * than a quarter of the budget is not kept.
     */
    public void put(IdempotencyScope scope, Fingerprint fingerprint, StoredResponse response, Instant recordExpiresAt) {
        long size = size(response);
        if (size > maxBytes / 4) {
            return;
        }
        putLock.lock();
        try {
            Instant now = clock.instant();
            Instant until = now.plus(timeToLive);
            CachedOutcome entry = new CachedOutcome(fingerprint, response, until.isBefore(recordExpiresAt) ? until : recordExpiresAt);
            sweep(now);
            if (!now.isBefore(entry.expiresAt())) {
                return;
            }
            Slot previous = slots.get(scope);
            if (previous != null) {
                remove(scope, previous);
            }
            while (bytes.get() + size > maxBytes) {
                Admission oldest = admissions.pollFirst();
                if (oldest == null) {
                    return;
                }
                Slot evicted = slotOf(oldest);
                if (evicted != null) {
                    remove(oldest.scope(), evicted);
                }
            }
            Slot slot = new Slot(++puts, entry, size);
            // Counted before it is visible, so that a read removing it can never take the count below zero.
            bytes.addAndGet(size);
            slots.put(scope, slot);
            admissions.addLast(new Admission(scope, slot.sequence()));
        } finally {
            putLock.unlock();
        }
    }

    /**
     * Notes that a duplicate waits for the attempt at {@code scope} running in this process, so that its outcome is
     * kept ({@link #takeAwaited}) for the duplicates to replay once it ended. Only the attempt's end (or its
     * outcome) clears the note, and each attempt runs here one at a time, so the notes never outnumber the
     * attempts running.
     */
    public void markAwaited(IdempotencyScope scope) {
        awaited.add(scope);
    }

    /** Whether a duplicate waited for the attempt at {@code scope}; clears the note. */
    public boolean takeAwaited(IdempotencyScope scope) {
        return awaited.remove(scope);
    }

    /** Finished outcomes only: attempts running in this process are the engine's to know. */
    @Override
    public Entry enter(IdempotencyScope scope, Fingerprint fingerprint, boolean writesOnce) {
        CachedOutcome outcome = get(scope);
        return outcome == null ? Unknown.INSTANCE : new Finished(outcome);
    }

    @Override
    public void remember(IdempotencyScope scope, CachedOutcome outcome) {
        put(scope, outcome.fingerprint(), outcome.response(), outcome.expiresAt());
    }

    @Override
    public void leave(IdempotencyScope scope, Marker marker) {
        // Keeps no markers.
    }

    @Override
    public boolean forget(IdempotencyScope scope) {
        Slot slot = slots.get(scope);
        if (slot != null) {
            remove(scope, slot);
        }
        return true;
    }

    /** Bytes held now, never more than the budget. */
    public long bytes() {
        return bytes.get();
    }

    /** Drops entries from the oldest on while they have expired or are gone already. */
    private void sweep(Instant now) {
        for (Admission oldest = admissions.peekFirst(); oldest != null; oldest = admissions.peekFirst()) {
            Slot slot = slotOf(oldest);
            if (slot != null && now.isBefore(slot.entry().expiresAt())) {
                return;
            }
            admissions.pollFirst();
            if (slot != null) {
                remove(oldest.scope(), slot);
            }
        }
    }

    /** The slot that {@code admission} put, unless it is gone. */
    private @Nullable Slot slotOf(Admission admission) {
        Slot slot = slots.get(admission.scope());
        return slot != null && slot.sequence() == admission.sequence() ? slot : null;
    }

    private void remove(IdempotencyScope scope, Slot slot) {
        if (slots.remove(scope, slot)) {
            bytes.addAndGet(-slot.size());
        }
    }

    /** Body and a rough allowance for the rest of the entry. */
    private static long size(StoredResponse response) {
        return response.bodyLength() + 512L;
    }
}
