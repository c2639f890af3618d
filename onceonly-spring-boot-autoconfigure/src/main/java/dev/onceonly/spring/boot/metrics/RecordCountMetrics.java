package dev.onceonly.spring.boot.metrics;

import dev.onceonly.RecordAdministration;
import dev.onceonly.spi.RecordState;
import dev.onceonly.spi.RecordStatistics;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gauges of what the record table holds, counted in the background every {@code interval} (a count reads the whole
 * table, so a scrape never triggers one): {@code onceonly.records} by {@code state}, {@code onceonly.records.expired}
 * (past their retention and not yet purged: the cleanup falls behind when it grows), {@code onceonly.records.abandoned}
 * (PROCESSING with their lease run out: attempts whose process died) and {@code onceonly.records.oldest.processing.age}
 * in seconds (0 when none). Every gauge is NaN until the first count, and while the store cannot count.
 */
final class RecordCountMetrics {

    private static final Logger log = LoggerFactory.getLogger(RecordCountMetrics.class);

    private final RecordAdministration records;
    private final Clock clock;
    private final Duration interval;
    private volatile @Nullable RecordStatistics latest;
    private volatile boolean unsupported;

    RecordCountMetrics(RecordAdministration records, Clock clock, Duration interval, MeterRegistry registry) {
        this.records = records;
        this.clock = clock;
        this.interval = interval;
        for (RecordState state : RecordState.values()) {
            gauge("onceonly.records", "Records in the store, by state",
                    statistics -> statistics.byState().get(state)).tag("state", state.name().toLowerCase(Locale.ROOT))
                    .register(registry);
        }
        gauge("onceonly.records.expired", "Records past their retention that the cleanup has not removed yet",
                RecordStatistics::expired).register(registry);
        gauge("onceonly.records.abandoned", "PROCESSING records whose lease ran out",
                RecordStatistics::abandoned).register(registry);
        gauge("onceonly.records.oldest.processing.age", "Age of the oldest PROCESSING record",
                this::oldestProcessingSeconds).baseUnit("seconds").register(registry);
    }

    private Gauge.Builder<RecordCountMetrics> gauge(String name, String description,
            ToDoubleFunction<RecordStatistics> value) {
        return Gauge.builder(name, this, metrics -> {
            RecordStatistics statistics = metrics.latest;
            return statistics == null ? Double.NaN : value.applyAsDouble(statistics);
        }).description(description);
    }

    private double oldestProcessingSeconds(RecordStatistics statistics) {
        Instant oldest = statistics.oldestProcessingCreatedAt();
        return oldest == null ? 0 : Math.max(0, Duration.between(oldest, clock.instant()).toMillis() / 1000.0);
    }

    /** Counts now: run by a {@link dev.onceonly.spring.boot.PeriodicTask} every interval. */
    void count() {
        if (unsupported) {
            return;
        }
        try {
            latest = records.statistics();
        } catch (UnsupportedOperationException e) {
            if (!unsupported) {
                log.info("The idempotency store cannot count its records; the onceonly.records gauges stay NaN");
                unsupported = true;
            }
        } catch (RuntimeException e) {
            latest = null;
            log.warn("Counting idempotency records failed ({}); trying again in {}", e.getClass().getSimpleName(),
                    interval);
        }
    }
}
