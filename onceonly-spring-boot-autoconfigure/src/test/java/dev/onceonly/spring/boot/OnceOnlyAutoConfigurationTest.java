package dev.onceonly.spring.boot;

import static dev.onceonly.spring.boot.StartupFailure.assertStartupFailure;
import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyDefaults;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyEngineBuilder;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyKeyFormat;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.OutcomeCodec;
import dev.onceonly.StoredResponse;
import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.Purgeable;
import dev.onceonly.tck.MutableClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.Ordered;

class OnceOnlyAutoConfigurationTest {

    private record RetryAfter(Duration retryAfter, int order) implements IdempotencyEngineCustomizer, Ordered {

        @Override
        public void customize(IdempotencyEngineBuilder builder) {
            builder.retryAfter(retryAfter);
        }

        @Override
        public int getOrder() {
            return order;
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(OnceOnlyAutoConfiguration.class,
                    OnceOnlyCleanupAutoConfiguration.class))
            .withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
            // An in-memory store has no transactions: leased mode, chosen by name as auto never does.
            .withPropertyValues("onceonly.mode=leased");

    @Test
    void engineRunsOnTheStoreBeanThatExists() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(IdempotencyEngine.class).hasSingleBean(BackgroundCleanup.class);
            assertThat(context.getBean(IdempotencyEngine.class).mode()).isEqualTo(IdempotencyMode.LEASED);
        });
    }

    @Test
    void backsOffForTheUsersEngineAndKeyFormat() {
        IdempotencyEngine own = IdempotencyEngine.builder(new InMemoryIdempotencyStore()).build();
        IdempotencyKeyFormat uuids = IdempotencyKeyFormat.matching("[0-9a-f-]{36}");

        runner.withBean(IdempotencyEngine.class, () -> own)
                .withBean(IdempotencyKeyFormat.class, () -> uuids)
                .run(context -> {
                    assertThat(context.getBean(IdempotencyEngine.class)).isSameAs(own);
                    assertThat(context.getBean(IdempotencyKeyFormat.class)).isSameAs(uuids);
                });
    }

    @Test
    void keyFormatFollowsTheProperties() {
        runner.withPropertyValues("onceonly.key.min-length=8", "onceonly.key.max-length=10").run(context -> {
            IdempotencyKeyFormat format = context.getBean(IdempotencyKeyFormat.class);
            assertThat(format.parse("12345678").value()).isEqualTo("12345678");
        });
    }

    // Issue 12 (privacy)
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "onceonly.key.storage=raw | raw",
        "onceonly.key.storage=digest | sha256",
        "onceonly.key.storage=digest;onceonly.key.digest-secret=0123456789abcdef0123456789abcdef | hmac-sha256"
    })
    void keyStorageFollowsTheProperties(String properties, String keyStorage) {
        runner.withPropertyValues(properties.split(";")).run(context -> assertThat(
                context.getBean(IdempotencyEngine.class).keyStorage()).hasToString(keyStorage));
    }

    // issue 12 (review): the generated toString of the properties printed the digest secret
    @Test
    void propertiesNeverShowTheDigestSecret() {
        String secret = "a-digest-secret-of-at-least-32-bytes-0123456789";

        runner.withPropertyValues("onceonly.key.storage=digest", "onceonly.key.digest-secret=" + secret)
                .run(context -> assertThat(context.getBean(OnceOnlyProperties.class).toString())
                        .contains("digestSecret=(set)").doesNotContain(secret));
    }

    /** The builder takes its defaults from the same constants; IdempotencyEngineTest pins that side. */
    @Test
    void propertyDefaultsAreCoresDefaults() {
        IdempotencyEngine builderDefaults = IdempotencyEngine.builder(new InMemoryIdempotencyStore()).build();

        runner.run(context -> {
            OnceOnlyProperties properties = context.getBean(OnceOnlyProperties.class);
            IdempotencyEngine fromProperties = context.getBean(IdempotencyEngine.class);

            assertThat(fromProperties.mode()).isEqualTo(builderDefaults.mode());
            assertThat(fromProperties.retryAfter()).isEqualTo(builderDefaults.retryAfter());
            assertThat(fromProperties.retention()).isEqualTo(builderDefaults.retention());
            assertThat(properties.lease().duration()).isEqualTo(Duration.parse(IdempotencyDefaults.LEASE_DURATION));
            assertThat(properties.waitTimeout()).isEqualTo(Duration.parse(IdempotencyDefaults.WAIT_TIMEOUT));
            assertThat(properties.replayCache().timeToLive())
                    .isEqualTo(Duration.parse(IdempotencyDefaults.REPLAY_CACHE_TIME_TO_LIVE));
            assertThat(properties.replayCache().maxSize().toBytes())
                    .isEqualTo(IdempotencyDefaults.REPLAY_CACHE_MAX_BYTES);
            assertThat(context.getBean(IdempotencyKeyFormat.class))
                    .hasToString(IdempotencyKeyFormat.DEFAULT.toString());
        });
    }

    @Test
    void customizersAdjustTheBuilderAfterThePropertiesInTheirOrder() {
        runner.withPropertyValues("onceonly.retry-after=3s")
                .withBean("late", IdempotencyEngineCustomizer.class, () -> new RetryAfter(Duration.ofSeconds(7), 2))
                .withBean("early", IdempotencyEngineCustomizer.class, () -> new RetryAfter(Duration.ofSeconds(5), 1))
                .run(context -> assertThat(context.getBean(IdempotencyEngine.class).retryAfter())
                        .isEqualTo(Duration.ofSeconds(7)));
    }

    @Test
    void clockBeanDecidesWhatTheEngineStoresAndWhatTheCleanerPurges() {
        Instant start = Instant.parse("2100-01-01T00:00:00Z");
        MutableClock clock = new MutableClock(start);
        IdempotencyScope scope = IdempotencyScope.of("alice", "create-order", IdempotencyKey.of(UUID.randomUUID()
                .toString()));

        runner.withBean(Clock.class, () -> clock).run(context -> {
            context.getBean(IdempotencyEngine.class).execute(scope, Fingerprint.builder().build(),
                    OutcomeCodec.identity(), attempt -> StoredResponse.of(201, new byte[0]));
            IdempotencyStore store = context.getBean(IdempotencyStore.class);
            assertThat(store.find(scope).orElseThrow().createdAt()).isEqualTo(start);

            clock.advance(Duration.ofDays(2));

            assertThat(context.getBean(BackgroundCleanup.class).purgeOnce()).isEqualTo(1);
            assertThat(store.find(scope)).isEmpty();
        });
    }

    @Test
    void cleanupPurgesEveryTableItIsGivenInBatchesAndATableThatFailsStopsNoOther() {
        MutableClock clock = new MutableClock(Instant.parse("2100-01-01T00:00:00Z"));
        Rows audit = new Rows("audit", 2_500);
        Purgeable broken = new Purgeable() {
            @Override
            public String name() {
                return "outbox";
            }

            @Override
            public int purge(Instant now, int limit) {
                throw new IllegalStateException("the outbox table is gone");
            }
        };

        runner.withBean(Clock.class, () -> clock).withBean("broken", Purgeable.class, () -> broken)
                .withBean("audit", Purgeable.class, () -> audit)
                .withPropertyValues("onceonly.cleanup.batch-size=1000", "onceonly.cleanup.batch-pause=0s")
                .run(context -> {
                    BackgroundCleanup cleanup = context.getBean(BackgroundCleanup.class);

                    assertThat(cleanup.purgeOnce()).isEqualTo(2_500);
                    assertThat(audit.batches).containsExactly(1_000, 1_000, 500);
                    assertThat(audit.purgedAt).containsOnly(clock.instant());
                    assertThat(cleanup.removed()).containsOnlyKeys("records", "audit", "outbox")
                            .containsEntry("audit", 2_500L).containsEntry("outbox", 0L);
                    assertThat(context).hasBean("onceOnlyBackgroundCleanupTask");
                });
    }

    /** A table with {@code due} rows due, that records each purge. */
    private static final class Rows implements Purgeable {
        final String name;
        int due;
        final List<Integer> batches = new ArrayList<>();
        final List<Instant> purgedAt = new ArrayList<>();

        Rows(String name, int due) {
            this.name = name;
            this.due = due;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public int purge(Instant now, int limit) {
            int removed = Math.min(limit, due);
            due -= removed;
            batches.add(removed);
            purgedAt.add(now);
            return removed;
        }
    }

    @Test
    void withoutAnyStoreStartupFailsSayingWhatToAdd() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(OnceOnlyAutoConfiguration.class))
                .run(context -> assertStartupFailure(context)
                        .hasMessageContaining("IdempotencyStore").hasMessageContaining("DataSource")
                        .hasMessageNotContaining("onceonly-jdbc"));
    }

    /** The starter brings no store: the JDBC one is a dependency of its own, as Redis and Kafka are. */
    @Test
    void withoutTheJdbcStoreOnTheClassPathStartupFailsNamingItsArtifact() {
        new ApplicationContextRunner().withClassLoader(new FilteredClassLoader("dev.onceonly.jdbc."))
                .withConfiguration(AutoConfigurations.of(OnceOnlyAutoConfiguration.class))
                .run(context -> assertStartupFailure(context)
                        .hasMessageContaining("add dev.onceonly:onceonly-jdbc and a DataSource"));
    }

    @Test
    void canBeSwitchedOff() {
        runner.withPropertyValues("onceonly.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(IdempotencyEngine.class)
                        .doesNotHaveBean(BackgroundCleanup.class));
    }

    @Test
    void cleanupCanBeSwitchedOff() {
        runner.withPropertyValues("onceonly.cleanup.enabled=false")
                .run(context -> assertThat(context).hasSingleBean(IdempotencyEngine.class)
                        .doesNotHaveBean(BackgroundCleanup.class));
    }

    // issue 8: a pattern silently overrode min-length and max-length.
    @Test
    void keyPatternTogetherWithALengthStopsStartupNamingBoth() {
        runner.withPropertyValues("onceonly.key.pattern=[a-z]+", "onceonly.key.min-length=8")
                .run(context -> assertStartupFailure(context).hasMessageContaining("onceonly.key.pattern")
                        .hasMessageContaining("onceonly.key.min-length/max-length"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "onceonly.wait-timeout=-1s | onceonly.wait-timeout",
        "onceonly.retry-after=0s | onceonly.retry-after",
        "onceonly.lease.duration=0s | onceonly.lease.duration",
        "onceonly.retention.succeeded=-5m | onceonly.retention.succeeded",
        "onceonly.key.max-length=300 | onceonly.key.min-length/max-length",
        "onceonly.key.header-name= | onceonly.key.header-name",
        "onceonly.http.key-reused-status=418 | onceonly.http.key-reused-status",
        "onceonly.http.problem-type-base=relative/ | onceonly.http.problem-type-base",
        "onceonly.cleanup.batch-size=0 | onceonly.cleanup.batch-size",
        "onceonly.http.endpoints[0].path=no-slash | onceonly.http.endpoints[].path",
        "onceonly.http.endpoints[0].path=/a/{b | onceonly.http.endpoints[].path",
        "onceonly.http.endpoints[0].path=/x;onceonly.http.endpoints[0].methods=P0ST | onceonly.http.endpoints[].methods",
        "onceonly.http.endpoints[0].path=/x;onceonly.http.endpoints[0].fingerprint-parameters=a, "
                + "| onceonly.http.endpoints[].fingerprint-parameters",
        "onceonly.key.pattern=[unclosed | onceonly.key.pattern",
        "onceonly.lease.duration=2d | onceonly.lease.duration",
        "onceonly.retention.failed=4000d | onceonly.retention.failed",
        "onceonly.retention.abandoned=0s | onceonly.retention.abandoned",
        "onceonly.retention.audit=400d | onceonly.retention.audit",
        "onceonly.metrics.record-counts-interval=-1s | onceonly.metrics.record-counts-interval",
        "onceonly.admin.role=ROLE_ADMIN | onceonly.admin.role",
        "onceonly.replay-cache.time-to-live=11m | onceonly.replay-cache.time-to-live",
        "onceonly.key.storage=digest;onceonly.key.digest-secret=too-short | onceonly.key.digest-secret",
        "onceonly.key.digest-secret=0123456789abcdef0123456789abcdef | onceonly.key.digest-secret"
    })
    void badPropertyStopsStartupNamingTheProperty(String properties, String named) {
        runner.withPropertyValues(properties.split(";"))
                .run(context -> assertStartupFailure(context).hasMessageContaining(named));
    }
}
