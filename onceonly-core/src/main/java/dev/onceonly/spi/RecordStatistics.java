package dev.onceonly.spi;

import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a store holds, read in one pass over its records, for the metrics an operator alerts on.
 *
 * @param byState how many records are in each state (every state present, zero when none)
 * @param oldestProcessingCreatedAt when the oldest PROCESSING record was first claimed (asynchronous operations
 *     waiting for a worker included); {@code null} when none
 * @param expired records past their expiry that the cleanup has not removed yet (it falls behind when this grows)
 * @param abandoned PROCESSING records whose attempt's lease has run out: its process died or stalled, and only a
 *     retry of their key (or an administrator's release) moves them on; asynchronous operations that no worker
 *     has started yet are not counted
 */
public record RecordStatistics(Map<RecordState, Long> byState, @Nullable Instant oldestProcessingCreatedAt,
        long expired, long abandoned) {

    public RecordStatistics {
        EnumMap<RecordState, Long> complete = new EnumMap<>(RecordState.class);
        for (RecordState state : RecordState.values()) {
            complete.put(state, Objects.requireNonNullElse(byState.get(state), 0L));
        }
        byState = Map.copyOf(complete);
        if (expired < 0 || abandoned < 0) {
            throw new IllegalArgumentException("counts must not be negative");
        }
    }

    /** All records. */
    public long total() {
        return byState.values().stream().mapToLong(Long::longValue).sum();
    }
}
