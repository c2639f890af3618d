package dev.onceonly.spring.boot.metrics;

import dev.onceonly.spring.boot.web.IdempotencyListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** Counts idempotent requests as {@code onceonly.requests} tagged {@code operation} and {@code outcome}. */
public final class MicrometerIdempotencyListener implements IdempotencyListener {

    private final MeterRegistry registry;

    public MicrometerIdempotencyListener(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void onRequest(String operation, Outcome outcome) {
        Counter.builder("onceonly.requests")
                .description("Requests to idempotent endpoints, by how they ended")
                .tag("operation", operation)
                .tag("outcome", outcome.tag())
                .register(registry)
                .increment();
    }
}
