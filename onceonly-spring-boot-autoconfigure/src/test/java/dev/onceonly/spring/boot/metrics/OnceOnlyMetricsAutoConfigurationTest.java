package dev.onceonly.spring.boot.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.OutcomeCodec;
import dev.onceonly.StoredResponse;
import dev.onceonly.http.RequestOutcome;
import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.Completion;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.LeaseToken;
import dev.onceonly.spi.RecordState;
import dev.onceonly.spi.Release;
import dev.onceonly.spring.boot.BackgroundCleanup;
import dev.onceonly.spring.boot.IdempotencyStoreDecorator;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.boot.OnceOnlyCleanupAutoConfiguration;
import dev.onceonly.tck.MutableClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class OnceOnlyMetricsAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(OnceOnlyAutoConfiguration.class,
                    OnceOnlyMetricsAutoConfiguration.class, OnceOnlyCleanupAutoConfiguration.class))
            .withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
            // An in-memory store has no transactions: leased mode, chosen by name as auto never does.
            .withPropertyValues("onceonly.mode=leased");

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
    void claimsAreCountedByWhatTheyFoundAndFencedRefusalsByOperation() {
        MeterRegistry registry = new SimpleMeterRegistry();
        IdempotencyStore store = new TimedIdempotencyStore(new InMemoryIdempotencyStore(), registry);
        Instant now = Instant.parse("2030-01-01T00:00:00Z");
        IdempotencyScope scope = IdempotencyScope.of("alice", "pay", IdempotencyKey.of(UUID.randomUUID().toString()));
        ClaimRequest claim = new ClaimRequest(scope, Fingerprint.builder().build(), now.plusSeconds(30),
                now.plusSeconds(3600), Duration.ZERO, false);

        LeaseToken first = ((ClaimResult.Claimed) store.claim(claim, now)).token();
        store.claim(claim, now);
        store.release(scope, first, new Release(now, now.plusSeconds(3600)), now);
        LeaseToken second = ((ClaimResult.Claimed) store.claim(claim, now.plusSeconds(1))).token();
        boolean staleCompleted = store.complete(scope, first, new Completion(RecordState.SUCCEEDED,
                StoredResponse.of(201, new byte[0]), now.plusSeconds(3600)), now.plusSeconds(2));
        boolean staleRenewed = store.renew(scope, first, now.plusSeconds(60), now.plusSeconds(2));

        assertThat(second.attempt()).isEqualTo(2);
        assertThat(staleCompleted).isFalse();
        assertThat(staleRenewed).isFalse();
        assertThat(registry.get("onceonly.store.claims").tag("result", "new").counter().count()).isEqualTo(1);
        assertThat(registry.get("onceonly.store.claims").tag("result", "duplicate").counter().count()).isEqualTo(1);
        assertThat(registry.get("onceonly.store.claims").tag("result", "taken_over").counter().count()).isEqualTo(1);
        assertThat(registry.get("onceonly.store.fenced").tag("operation", "complete").counter().count())
                .isEqualTo(1);
        assertThat(registry.get("onceonly.store.fenced").tag("operation", "renew").counter().count()).isEqualTo(1);
        assertThat(registry.get("onceonly.store.fenced").tag("operation", "release").counter().count()).isZero();
    }

    @Test
    void recordsAreCountedByStateInTheBackgroundAndTheCleanupCountsWhatItRemoved() {
        MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
        runner.withConfiguration(AutoConfigurations.of(OnceOnlyRecordMetricsAutoConfiguration.class))
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new).withBean(Clock.class, () -> clock)
                .withPropertyValues("onceonly.metrics.record-counts-interval=100ms")
                .run(context -> {
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    IdempotencyEngine engine = context.getBean(IdempotencyEngine.class);
                    engine.execute(IdempotencyScope.of("alice", "create-order", IdempotencyKey.of(UUID.randomUUID()
                            .toString())), Fingerprint.builder().build(), OutcomeCodec.identity(),
                            attempt -> StoredResponse.of(201, new byte[0]));

                    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(registry
                            .get("onceonly.records").tag("state", "succeeded").gauge().value()).isEqualTo(1));
                    assertThat(registry.get("onceonly.records").tag("state", "processing").gauge().value()).isZero();
                    assertThat(registry.get("onceonly.records.oldest.processing.age").gauge().value()).isZero();

                    clock.advance(Duration.ofDays(2));
                    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(registry
                            .get("onceonly.records.expired").gauge().value()).isEqualTo(1));
                    // A MeterBinder bean, which Boot's metrics auto-configuration binds in an application.
                    context.getBean(CleanupMetrics.class).bindTo(registry);
                    context.getBean(BackgroundCleanup.class).purgeOnce();
                    assertThat(registry.get("onceonly.cleanup.rows").tag("rows", "records").functionCounter().count())
                            .isEqualTo(1);
                });
    }

    @Test
    void recordCountsCanBeSwitchedOff() {
        runner.withConfiguration(AutoConfigurations.of(OnceOnlyRecordMetricsAutoConfiguration.class))
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("onceonly.metrics.record-counts-interval=0s")
                .run(context -> assertThat(context.getBean(MeterRegistry.class).find("onceonly.records").gauges())
                        .isEmpty());
    }

    @Test
    void theCleanersPurgeIsTimed() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            context.getBean(BackgroundCleanup.class).purgeOnce();

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
            listener.onRequest("create-order", RequestOutcome.REPLAYED);
        }

        assertThat(registered).hasValue(RequestOutcome.values().length);
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
