package dev.onceonly.spring.boot.metrics;

import dev.onceonly.http.RequestOutcome;
import dev.onceonly.spring.web.IdempotencyListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Counts idempotent requests as {@code onceonly.requests} tagged {@code operation} and {@code outcome}. Each
 * operation's counters are registered on its first request and reused after, so a request costs one map lookup,
 * never a meter registration. Operations are the application's endpoints, a bounded set.
 */
public final class MicrometerIdempotencyListener implements IdempotencyListener {

    private final MeterRegistry registry;
    private final ConcurrentMap<String, Map<RequestOutcome, Counter>> counters = new ConcurrentHashMap<>();

    public MicrometerIdempotencyListener(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void onRequest(String operation, RequestOutcome outcome) {
        // Every outcome has its counter from the start (register).
        Objects.requireNonNull(counters.computeIfAbsent(operation, this::register).get(outcome)).increment();
    }

    private Map<RequestOutcome, Counter> register(String operation) {
        Map<RequestOutcome, Counter> byOutcome = new EnumMap<>(RequestOutcome.class);
        for (RequestOutcome outcome : RequestOutcome.values()) {
            byOutcome.put(outcome, Counter.builder("onceonly.requests")
                    .description("Requests to idempotent endpoints, by how they ended")
                    .tag("operation", operation)
                    .tag("outcome", outcome.tag())
                    .register(registry));
        }
        return byOutcome;
    }
}
