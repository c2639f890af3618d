package dev.onceonly.spring.boot.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.OutcomeCodec;
import dev.onceonly.StoredResponse;
import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spring.boot.ExpiredRecordCleaner;
import dev.onceonly.spring.boot.IdempotencyStoreDecorator;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.boot.OnceOnlyCleanupAutoConfiguration;
import dev.onceonly.spring.boot.web.IdempotencyListener.Outcome;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class OnceOnlyMetricsAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(OnceOnlyAutoConfiguration.class,
                    OnceOnlyMetricsAutoConfiguration.class, OnceOnlyCleanupAutoConfiguration.class))
            .withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new);

    /**
     * Counting requests is the listener's (below) and the filter's; the example's HTTP contract shows a real
     * replay counted.
     */
    @Test
    void theEnginesStoreCallsAreTimed() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            IdempotencyEngine engine = context.getBean(IdempotencyEngine.class);

            engine.execute(IdempotencyScope.of("alice", "create-order", IdempotencyKey.of(UUID.randomUUID()
                    .toString())), Fingerprint.builder().build(), OutcomeCodec.identity(),
                    attempt -> StoredResponse.of(201, new byte[0]));

            assertThat(context.getBean(IdempotencyStore.class)).isInstanceOf(InMemoryIdempotencyStore.class);
            assertThat(registry.get("onceonly.store.operations").tag("operation", "claim")
                    .tag("store", "InMemoryIdempotencyStore").timer().count()).isEqualTo(1);
            assertThat(registry.get("onceonly.store.operations").tag("operation", "complete").timer().count())
                    .isEqualTo(1);
        });
    }

    @Test
    void theCleanersPurgeIsTimed() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            context.getBean(ExpiredRecordCleaner.class).purgeOnce();

            assertThat(context.getBean(MeterRegistry.class).get("onceonly.store.operations")
                    .tag("operation", "purge").timer().count()).isEqualTo(1);
        });
    }

    @Test
    void anOperationsCountersAreRegisteredOnceAndStartAtZero() {
        MeterRegistry registry = new SimpleMeterRegistry();
        AtomicInteger registered = new AtomicInteger();
        registry.config().onMeterAdded(meter -> registered.incrementAndGet());
        MicrometerIdempotencyListener listener = new MicrometerIdempotencyListener(registry);

        for (int i = 0; i < 3; i++) {
            listener.onRequest("create-order", Outcome.REPLAYED);
        }

        assertThat(registered).hasValue(Outcome.values().length);
        assertThat(registry.get("onceonly.requests").tag("operation", "create-order").tag("outcome", "replayed")
                .counter().count()).isEqualTo(3);
        assertThat(registry.get("onceonly.requests").tag("operation", "create-order").tag("outcome", "executed")
                .counter().count()).isZero();
    }

    @Test
    void withoutARegistryNothingIsTimed() {
        runner.run(context -> assertThat(context).doesNotHaveBean(MicrometerIdempotencyListener.class)
                .doesNotHaveBean(IdempotencyStoreDecorator.class));
    }
}
