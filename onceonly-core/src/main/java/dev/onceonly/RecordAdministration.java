package dev.onceonly;

import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.OutcomeCache;
import dev.onceonly.spi.RecordState;
import dev.onceonly.spi.RecordStatistics;
import dev.onceonly.spi.Release;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an administrator may do to an engine's records: look one up by the key a client gives, list an owner's
 * recent ones, evict one, release one stuck in PROCESSING, and count them. Keys are digested first where the engine
 * {@linkplain KeyStorage stores only digests}, so the same lookups work either way. Every change is logged with its
 * reason. Thread-safe.
 */
public final class RecordAdministration {

    /** The most records {@link #recent} lists at once. */
    public static final int MAX_LISTED = 100;

    private static final Logger log = LoggerFactory.getLogger(RecordAdministration.class);
    /** Control characters, and the Unicode line and paragraph separators. */
    private static final Pattern LINE_BREAKING = Pattern.compile("[\\p{Cc}\\p{Zl}\\p{Zp}]");

    private final IdempotencyStore store;
    private final Clock clock;
    private final KeyStorage keyStorage;
    private final Retention retention;
    private final List<OutcomeCache> caches;

    RecordAdministration(IdempotencyStore store, Clock clock, KeyStorage keyStorage, Retention retention,
            @Nullable OutcomeCache replays, @Nullable OutcomeCache shared) {
        this(store, clock, keyStorage, retention, Stream.of(replays, shared).filter(Objects::nonNull).toList());
    }

    private RecordAdministration(IdempotencyStore store, Clock clock, KeyStorage keyStorage, Retention retention,
            List<OutcomeCache> caches) {
        this.store = store;
        this.clock = clock;
        this.keyStorage = keyStorage;
        this.retention = retention;
        this.caches = caches;
    }

    /**
     * These operations on keys given as stored, such as the digests {@link #recent} lists where only digests are
     * stored (a digest cannot be turned back into the key).
     */
    public RecordAdministration forStoredKeys() {
        return new RecordAdministration(store, clock, KeyStorage.raw(), retention, caches);
    }

    /** The record of {@code scope} (the key as the client sent it), expired or not. */
    public Optional<IdempotencyRecord> find(IdempotencyScope scope) {
        return store.find(keyStorage.stored(scope));
    }

    /**
     * Up to {@code limit} (at most {@value #MAX_LISTED}) records of an owner and operation, the newest first.
     *
     * @throws IllegalArgumentException if {@code limit} is out of range
     */
    public List<IdempotencyRecord> recent(String owner, String operation, int limit) {
        if (limit < 1 || limit > MAX_LISTED) {
            throw new IllegalArgumentException("limit must be between 1 and " + MAX_LISTED + ", but is " + limit);
        }
        return store.recent(Objects.requireNonNull(owner, "owner"), Objects.requireNonNull(operation, "operation"),
                limit);
    }

    /**
     * Deletes the record of {@code scope} whatever its state, so that its key runs again as new, and drops what this
     * process's memory and the shared cache hold of it. The caches are cleared also when the store had no record
     * (so an eviction whose cache step failed can simply be repeated), before and after the deletion, which narrows
     * to a few microseconds the window in which a replay that read the store just before the deletion could put the
     * outcome back in a cache. Other instances' memories are not reached: they may replay the outcome for up to
     * their replay cache's time to live.
     *
     * @param reason why, for the log (an operator's words; not stored)
     */
    public Eviction evict(IdempotencyScope scope, String reason) {
        IdempotencyScope stored = keyStorage.stored(scope);
        boolean forgotten = forget(stored);
        boolean found = store.evict(stored, clock.instant());
        forgotten &= forget(stored);
        log.info("Evicted idempotency record: operation={} key={} found={} cachesCleared={} reason={}",
                oneLine(stored.operation()), oneLine(stored.key().value()), found, forgotten, oneLine(reason));
        return new Eviction(found, forgotten);
    }

    private boolean forget(IdempotencyScope stored) {
        boolean all = true;
        for (OutcomeCache cache : caches) {
            all &= cache.forget(stored);
        }
        return all;
    }

    /**
     * Ends the attempt of a record stuck in PROCESSING (its process gone, its lease not yet run out, or an operator's
     * call): the record becomes FAILED_RETRYABLE, claimable at once, one failure more. Should the attempt still be
     * running, it can no longer store its outcome (its fencing token is spent).
     *
     * @param reason why, for the log
     */
    public Released release(IdempotencyScope scope, String reason) {
        IdempotencyScope stored = keyStorage.stored(scope);
        Optional<IdempotencyRecord> found = store.find(stored);
        Released result;
        if (found.isEmpty()) {
            result = Released.NOT_FOUND;
        } else if (found.get().state() != RecordState.PROCESSING) {
            result = Released.NOT_PROCESSING;
        } else {
            Instant now = clock.instant();
            boolean released = store.release(stored, found.get().token(),
                    new Release(now, now.plus(retention.failed())), now);
            result = released ? Released.RELEASED : Released.CHANGED;
        }
        log.info("Released idempotency record: operation={} key={} result={} reason={}",
                oneLine(stored.operation()), oneLine(stored.key().value()), result, oneLine(reason));
        return result;
    }

    /** The store's counts as of now, by this engine's clock. */
    public RecordStatistics statistics() {
        return store.statistics(clock.instant());
    }

    /** Keeps outside text to one log line: a line break (of any kind) would let it forge the next line. */
    private static String oneLine(String text) {
        return LINE_BREAKING.matcher(Objects.requireNonNullElse(text, "")).replaceAll(" ");
    }

    /**
     * What {@link #evict} did.
     *
     * @param found whether the store had a record (and deleted it)
     * @param cachesCleared whether every cache confirmed it holds nothing of the scope; if not (Redis unreachable),
     *     the shared cache may replay the outcome until its entry runs out: evict again once it answers
     */
    public record Eviction(boolean found, boolean cachesCleared) {
    }

    /** What {@link #release} did. */
    public enum Released {
        /** The record is FAILED_RETRYABLE now, and the next request with its key runs. */
        RELEASED,
        /** No record. */
        NOT_FOUND,
        /** The record is not PROCESSING: nothing to release. */
        NOT_PROCESSING,
        /** The attempt finished or was taken over between the read and the release: look again. */
        CHANGED
    }
}
