package dev.onceonly.kafka.outbox;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Rows the broker refused (too large, no topic for them, or refused while it took the round's others), held back
 * from this relay's rounds for a while, so that a few of them cannot fill every round and crowd out the rows behind
 * them: from one second, doubling to five minutes, per row. Rows of a round where nothing got through (the broker
 * is away) are not held back: they go as soon as it is back. In memory, per relay, and bounded: a relay that restarts, or another instance, tries them
 * again at once. Thread-safe.
 */
final class RefusedRows {

    private static final Duration FIRST = Duration.ofSeconds(1);
    private static final Duration LONGEST = Duration.ofMinutes(5);
    /** Beyond this many, a refused row is not held back: memory stays bounded, rounds merely get smaller. */
    private static final int MAX_ROWS = 10_000;

    private record HeldBack(Instant until, Duration pause) {
    }

    private final Map<Long, HeldBack> rows = new ConcurrentHashMap<>();

    /**
     * How many rows are held back at {@code now}: as many more a round selects, to fill its batch. Forgets rows long
     * past their pause (published by another relay since, most likely).
     */
    int heldBack(Instant now) {
        Instant stale = now.minus(LONGEST);
        rows.values().removeIf(held -> held.until().isBefore(stale));
        return (int) rows.values().stream().filter(held -> now.isBefore(held.until())).count();
    }

    boolean isHeldBack(long id, Instant now) {
        HeldBack held = rows.get(id);
        return held != null && now.isBefore(held.until());
    }

    void refused(long id, Instant now) {
        if (rows.size() >= MAX_ROWS && !rows.containsKey(id)) {
            return;
        }
        rows.compute(id, (ignored, held) -> {
            Duration pause = held == null ? FIRST : held.pause().multipliedBy(2);
            pause = pause.compareTo(LONGEST) > 0 ? LONGEST : pause;
            return new HeldBack(now.plus(pause), pause);
        });
    }

    void published(long id) {
        rows.remove(id);
    }
}
