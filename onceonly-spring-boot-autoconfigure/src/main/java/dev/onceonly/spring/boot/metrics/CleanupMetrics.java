package dev.onceonly.spring.boot.metrics;

import dev.onceonly.spring.boot.BackgroundCleanup;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/** {@code onceonly.cleanup.rows{rows=records|audit|outbox}}: rows the background cleanup of this instance removed. */
final class CleanupMetrics implements MeterBinder {

    private final BackgroundCleanup cleanup;

    CleanupMetrics(BackgroundCleanup cleanup) {
        this.cleanup = cleanup;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (String rows : cleanup.removed().keySet()) {
            FunctionCounter.builder("onceonly.cleanup.rows", cleanup,
                            c -> c.removed().getOrDefault(rows, 0L))
                    .description("Rows the background cleanup removed").tag("rows", rows).register(registry);
        }
    }
}
