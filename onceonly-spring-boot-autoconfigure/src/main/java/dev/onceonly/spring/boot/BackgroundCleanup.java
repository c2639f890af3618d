package dev.onceonly.spring.boot;

import dev.onceonly.spi.Purgeable;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one cleanup of every OnceOnly table ({@link Purgeable}: records, audit rows, published outbox rows): every
 * {@code interval}, each table in turn in batches of {@code batchSize} with a pause between them, until a batch comes
 * back short. Unthrottled deletes slow concurrent writes, hence the pause; batches skip rows other transactions lock,
 * so every instance runs it at once. A table whose purge fails is logged and tried again next time, after the
 * others. What is due is decided by the application's clock. Run by a {@link PeriodicTask}.
 */
public final class BackgroundCleanup {

    private static final Logger log = LoggerFactory.getLogger(BackgroundCleanup.class);

    private final List<Purgeable> tables;
    private final Clock clock;
    private final OnceOnlyProperties.Cleanup settings;
    private final Map<String, LongAdder> removed = new LinkedHashMap<>();

    public BackgroundCleanup(List<Purgeable> tables, Clock clock, OnceOnlyProperties.Cleanup settings) {
        this.tables = List.copyOf(tables);
        this.clock = clock;
        this.settings = settings;
        for (Purgeable table : this.tables) {
            if (removed.putIfAbsent(table.name(), new LongAdder()) != null) {
                throw new IllegalArgumentException("two cleanup targets are named " + table.name());
            }
        }
    }

    /** Purges what is due now in every table; returns the number of rows removed. */
    public int purgeOnce() {
        int total = 0;
        for (Purgeable table : tables) {
            if (Thread.currentThread().isInterrupted()) {
                break; // shutting down
            }
            try {
                total += purge(table);
            } catch (RuntimeException | Error e) {
                // An Error too: the periodic task would otherwise never run again, and the tables would grow.
                log.warn("Purging {} failed; trying again in {}", table.name(), settings.interval(), e);
            }
        }
        return total;
    }

    private int purge(Purgeable table) {
        int total = 0;
        int deleted;
        do {
            deleted = table.purge(clock.instant(), settings.batchSize());
            total += deleted;
            Objects.requireNonNull(removed.get(table.name()), "the table's counter").add(deleted);
            if (deleted == settings.batchSize() && !settings.batchPause().isZero()) {
                try {
                    Thread.sleep(settings.batchPause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        } while (deleted == settings.batchSize() && !Thread.currentThread().isInterrupted());
        if (total > 0) {
            log.debug("Purged {} rows of {}", total, table.name());
        }
        return total;
    }

    /** The rows removed from each table since startup, by {@link Purgeable#name()}: for metrics. */
    public Map<String, Long> removed() {
        Map<String, Long> counts = new LinkedHashMap<>();
        removed.forEach((name, count) -> counts.put(name, count.sum()));
        return counts;
    }
}
