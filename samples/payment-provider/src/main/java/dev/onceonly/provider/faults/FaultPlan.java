package dev.onceonly.provider.faults;

import dev.onceonly.provider.ProviderProperties;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Optional;
import org.springframework.stereotype.Component;

/**
 * The faults in force: a latency for every charge request and a queue of failures, one taken by each new (not
 * replayed) charge request. Starts from {@code provider.latency} and {@code provider.failures}. Thread-safe.
 */
@Component
public class FaultPlan {

    private final ArrayDeque<Failure> failures = new ArrayDeque<>();
    private Duration latency;

    FaultPlan(ProviderProperties properties) {
        this.latency = properties.latency();
        this.failures.addAll(properties.failures());
    }

    /** Replaces the plan. */
    public synchronized void replace(Duration latency, List<Failure> failures) {
        this.latency = latency;
        this.failures.clear();
        this.failures.addAll(failures);
    }

    /** No latency, no failures. */
    public synchronized void clear() {
        replace(Duration.ZERO, List.of());
    }

    /** Takes the failure the next new charge request meets; empty when the queue is used up. */
    public synchronized Optional<Failure> takeNext() {
        return Optional.ofNullable(failures.poll());
    }

    public synchronized Faults current() {
        return new Faults(latency, List.copyOf(failures));
    }

    /** What the plan holds now; also the JSON of {@code /admin/faults}. */
    public record Faults(Duration latency, List<Failure> failures) {
    }
}
