package dev.onceonly.spring.boot.kafka;

import dev.onceonly.kafka.outbox.OutboxRelay;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code onceonly.outbox.records{table, outcome=published|refused}}, counted by the relay, and
 * {@code onceonly.outbox.oldest.age{table}}: the age in seconds of the oldest unpublished row (0 when none; NaN when
 * the database cannot say), read from the table when a registry asks — the one to alert on.
 */
final class OutboxMetrics implements MeterBinder {

    private static final Logger log = LoggerFactory.getLogger(OutboxMetrics.class);

    private final OutboxRelay relay;
    private final Clock clock;

    OutboxMetrics(OutboxRelay relay, Clock clock) {
        this.relay = relay;
        this.clock = clock;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        FunctionCounter.builder("onceonly.outbox.records", relay, OutboxRelay::publishedRows)
                .description("Outbox rows this instance published").tag("table", relay.table())
                .tag("outcome", "published").register(registry);
        FunctionCounter.builder("onceonly.outbox.records", relay, OutboxRelay::refusedSends)
                .description("Outbox rows this instance sent and the broker refused or did not acknowledge in time")
                .tag("table", relay.table()).tag("outcome", "refused").register(registry);
        Gauge.builder("onceonly.outbox.oldest.age", this, OutboxMetrics::oldestAgeSeconds)
                .description("Age of the oldest unpublished outbox row").baseUnit("seconds")
                .tag("table", relay.table()).register(registry);
    }

    private double oldestAgeSeconds() {
        try {
            Optional<Instant> oldest = relay.oldestUnpublished();
            return oldest.map(created -> Math.max(0, Duration.between(created, clock.instant()).toMillis()) / 1000.0)
                    .orElse(0.0);
        } catch (RuntimeException e) {
            log.debug("The outbox backlog of {} is unknown ({})", relay.table(), e.getClass().getSimpleName());
            return Double.NaN;
        }
    }
}
