package dev.onceonly.spring.boot.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.boot.web.IdempotencyListener.Outcome;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class OnceOnlyMetricsAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(OnceOnlyAutoConfiguration.class,
                    OnceOnlyMetricsAutoConfiguration.class))
            .withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new);

    @Test
    void storeCallsAreTimedAndRequestsCounted() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            IdempotencyStore store = context.getBean(IdempotencyStore.class);

            store.purgeExpired(Instant.now(), 10);
            context.getBean(MicrometerIdempotencyListener.class).onRequest("create-order", Outcome.REPLAYED);

            assertThat(store).isInstanceOf(TimedIdempotencyStore.class);
            assertThat(registry.get("onceonly.store.operations").tag("operation", "purge").timer().count())
                    .isEqualTo(1);
            assertThat(registry.get("onceonly.requests").tag("outcome", "replayed")
                    .tag("operation", "create-order").counter().count()).isEqualTo(1);
        });
    }

    @Test
    void withoutARegistryNothingIsWrapped() {
        runner.run(context -> {
            assertThat(context).doesNotHaveBean(MicrometerIdempotencyListener.class);
            assertThat(context.getBean(IdempotencyStore.class)).isInstanceOf(InMemoryIdempotencyStore.class);
        });
    }
}
