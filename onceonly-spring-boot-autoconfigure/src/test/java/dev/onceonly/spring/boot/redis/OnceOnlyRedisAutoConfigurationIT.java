package dev.onceonly.spring.boot.redis;

import static dev.onceonly.spring.boot.StartupFailure.assertStartupFailure;
import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.OutcomeCodec;
import dev.onceonly.StoredResponse;
import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.redis.RedisLocks;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spring.OnceOnlySetup;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.boot.OnceOnlyEncryptionAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The Redis fast layer as the starter wires it, on the shared Redis (127.0.0.1:6379): in front of the engine's store,
 * encrypted when responses are, with its own fail-fast connection, health and metrics.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class OnceOnlyRedisAutoConfigurationIT {

    private static final String PORT = Integer.getInteger("onceonly.test.redis.port", 6379).toString();

    private final String prefix = "starter-it-" + UUID.randomUUID();
    private final IdempotencyScope scope = IdempotencyScope.of("alice", "create-order",
            IdempotencyKey.of(UUID.randomUUID().toString()));
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
                    OnceOnlyRedisAutoConfiguration.class, OnceOnlyAutoConfiguration.class,
                    OnceOnlyEncryptionAutoConfiguration.class))
            .withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withPropertyValues("onceonly.mode=leased", "spring.data.redis.host=127.0.0.1",
                    "spring.data.redis.port=" + PORT,
                    "onceonly.redis.prefix=" + prefix);

    @Test
    void anOutcomeReplayedThroughOneContextsEngineIsReplayedByAnotherWithoutItsStore(CapturedOutput output) {
        AtomicInteger runs = new AtomicInteger();
        runner.run(first -> {
            assertThat(output).contains("OnceOnly Redis fast layer on: Redis at 127.0.0.1:" + PORT + " answers");
            IdempotencyEngine engine = first.getBean(IdempotencyEngine.class);
            engine.execute(scope, request(), OutcomeCodec.identity(), attempt -> created(runs));
            // Its first replay, from the store, gives Redis the outcome.
            assertThat(engine.execute(scope, request(), OutcomeCodec.identity(), attempt -> created(runs))
                    .replayed()).isTrue();
        });
        // Another instance: a store of its own that has never seen the request, the same Redis.
        runner.run(second -> {
            StoredResponse replay = second.getBean(IdempotencyEngine.class).execute(scope, request(),
                    OutcomeCodec.identity(), attempt -> created(runs)).value();

            assertThat(replay.bodyAsString()).isEqualTo("{\"id\":7}");
            assertThat(runs).hasValue(1);
            MeterRegistry registry = second.getBean(MeterRegistry.class);
            second.getBean(MeterBinder.class).bindTo(registry);
            assertThat(registry.get("onceonly.redis.cache").tag("result", "hit")
                    .functionCounter().count()).isEqualTo(1);
            assertThat(registry.get("onceonly.redis.breaker.state").tag("state", "closed")
                    .gauge().value()).isEqualTo(1);
        });
    }

    @Test
    void encryptedResponsesStayEncryptedInRedis() {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        runner.withPropertyValues("onceonly.encryption.active-key-id=k1",
                "onceonly.encryption.keys.k1=" + Base64.getEncoder().encodeToString(key)).run(context -> {
                    IdempotencyEngine engine = context.getBean(IdempotencyEngine.class);
                    engine.execute(scope, request(), OutcomeCodec.identity(), attempt -> created(new AtomicInteger()));
                    // Its first replay, from the store, gives Redis the outcome.
                    engine.execute(scope, request(), OutcomeCodec.identity(), attempt -> created(new AtomicInteger()));

                    StringRedisTemplate redis = context.getBean(OnceOnlyRedis.class).template();
                    String value = redis.opsForValue().get(prefix + ":{" + scope.id() + "}:o");
                    assertThat(value).isNotNull().doesNotContain("\"id\":7");
                    // and the startup summary says both
                    assertThat(context.getBean(OnceOnlySetup.class).view()).containsEntry("redis", "claim-first")
                            .containsEntry("encryption", "on");
                });
    }

    @Test
    void onceOnlysConnectionFailsFastAndTheApplicationsKeepsItsOwnSettings() {
        runner.run(context -> {
            LettuceConnectionFactory application = context.getBean(LettuceConnectionFactory.class);
            assertThat(application.getClientConfiguration().getCommandTimeout()).isEqualTo(Duration.ofSeconds(60));
            assertThat(context.getBean(RedisLocks.class)).isNotNull();
            Health health = context.getBean("onceOnlyRedisHealthIndicator", HealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("redis", "answering").containsEntry("breaker", "closed");
        });
    }

    @Test
    void anUnreachableRedisIsAnnouncedAndReportedYetTheServiceStartsAndAnswers(CapturedOutput output)
            throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        runner.withPropertyValues("spring.data.redis.port=" + closedPort).run(context -> {
            assertThat(output).contains("OnceOnly Redis fast layer waiting: Redis at 127.0.0.1:" + closedPort
                    + " does not answer");
            AtomicInteger runs = new AtomicInteger();
            IdempotencyEngine engine = context.getBean(IdempotencyEngine.class);
            engine.execute(scope, request(), OutcomeCodec.identity(), attempt -> created(runs));
            assertThat(engine.execute(scope, request(), OutcomeCodec.identity(), attempt -> created(runs))
                    .replayed()).isTrue();
            assertThat(runs).hasValue(1);
            Health health = context.getBean("onceOnlyRedisHealthIndicator", HealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("redis", "unreachable");
        });
    }

    @Test
    void turnedOffThereIsNoRedisLayer() {
        runner.withPropertyValues("onceonly.redis.enabled=false")
                .run(context -> {
                    assertThat(context).doesNotHaveBean(OnceOnlyRedis.class);
                    assertThat(context.getBean(OnceOnlySetup.class).view()).containsEntry("redis", "off");
                });
    }

    @Test
    void aTimeoutOutOfRangeStopsStartupNamingTheProperty() {
        runner.withPropertyValues("onceonly.redis.timeout=30s").run(context -> assertStartupFailure(context)
                .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("onceonly.redis.timeout"));
    }

    @Test
    void aPrefixThatWouldBreakTheHashTagsStopsStartupNamingTheProperty() {
        runner.withPropertyValues("onceonly.redis.prefix=shop{1}").run(context -> assertStartupFailure(context)
                .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("onceonly.redis.prefix"));
    }

    private static Fingerprint request() {
        return Fingerprint.builder().rawBody("order".getBytes(StandardCharsets.UTF_8)).build();
    }

    private static StoredResponse created(AtomicInteger runs) {
        runs.incrementAndGet();
        return StoredResponse.of(201, "{\"id\":7}".getBytes(StandardCharsets.UTF_8));
    }
}
