package dev.onceonly.spring.boot;

import static dev.onceonly.spring.boot.StartupFailure.assertStartupFailure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.OutcomeCodec;
import dev.onceonly.StoredResponse;
import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.Completion;
import dev.onceonly.spi.ForwardingIdempotencyStore;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.LeaseToken;
import dev.onceonly.spring.boot.metrics.OnceOnlyMetricsAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

@ExtendWith(OutputCaptureExtension.class)
class OnceOnlyEncryptionAutoConfigurationTest {

    private static final String KEY = base64Key(32);
    private static final String SHORT_KEY = base64Key(16);
    private static final StoredResponse ANSWER = StoredResponse.of(201, Map.of("Location",
            List.of("/orders/ord-42")), "{\"orderId\":\"ord-42\"}".getBytes(StandardCharsets.UTF_8), "ord-42");

    private final IdempotencyScope scope = IdempotencyScope.of("alice", "create-order",
            IdempotencyKey.of(UUID.randomUUID().toString()));
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(OnceOnlyAutoConfiguration.class,
                    OnceOnlyEncryptionAutoConfiguration.class, OnceOnlyMetricsAutoConfiguration.class,
                    OnceOnlyCleanupAutoConfiguration.class))
            .withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            // An in-memory store has no transactions: leased mode, chosen by name as auto never does.
            .withPropertyValues("onceonly.mode=leased");

    @Test
    void activeKeyIdSwitchesEncryptionAtRestOn() {
        runner.withPropertyValues("onceonly.encryption.active-key-id=k1", "onceonly.encryption.keys.k1=" + KEY)
                .run(context -> {
                    answer(context);

                    StoredResponse stored = storedResponse(context);
                    assertThat(stored.headers()).containsOnlyKeys("OnceOnly-Encrypted");
                    assertThat(stored.bodyAsString()).doesNotContain("ord-42");
                });
    }

    @Test
    void plaintextResponsesAreRefusedWhenNoLongerReadable() {
        runner.withPropertyValues("onceonly.encryption.active-key-id=k1", "onceonly.encryption.keys.k1=" + KEY,
                "onceonly.encryption.plaintext-readable=false").run(context -> {
                    IdempotencyStore store = context.getBean(IdempotencyStore.class);
                    IdempotencyEngine.builder(store).build().execute(scope, Fingerprint.builder().build(),
                            OutcomeCodec.identity(), attempt -> ANSWER);

                    assertThatThrownBy(() -> answer(context)).isInstanceOf(IdempotencyStoreException.class)
                            .hasMessageContaining("not encrypted");
                });
    }

    @Test
    void startupLogsTheKeyIdsAndNeverAKey(CapturedOutput output) {
        String otherKey = base64Key(32);

        runner.withPropertyValues("onceonly.encryption.active-key-id=k2", "onceonly.encryption.keys.k1=" + KEY,
                "onceonly.encryption.keys.k2=" + otherKey).run(context -> assertThat(context).hasNotFailed());

        assertThat(output.getAll()).contains("Stored responses are encrypted with key 'k2'")
                .doesNotContain(KEY, otherKey);
    }

    @Test
    void encryptionWrapsTheTimingSoTheStoreKeepsItsMetricTag() {
        runner.withPropertyValues("onceonly.encryption.active-key-id=k1", "onceonly.encryption.keys.k1=" + KEY)
                .run(context -> {
                    answer(context);

                    assertThat(context.getBean(MeterRegistry.class).get("onceonly.store.operations")
                            .tag("operation", "complete").tag("store", "InMemoryIdempotencyStore").timer().count())
                            .isEqualTo(1);
                    assertThat(storedResponse(context).headers()).containsOnlyKeys("OnceOnly-Encrypted");
                });
    }

    @Test
    void responsesAreStoredAsTheyAreWithoutAnActiveKeyId() {
        runner.run(context -> {
            answer(context);

            assertThat(storedResponse(context)).isEqualTo(ANSWER);
        });
    }

    @Test
    void startupFailsOnAKeyThatIsNotAes256WithoutQuotingIt(CapturedOutput output) {
        runner.withPropertyValues("onceonly.encryption.active-key-id=k1", "onceonly.encryption.keys.k1=" + SHORT_KEY)
                .run(context -> assertStartupFailure(context)
                        .isInstanceOf(IdempotencyConfigurationException.class)
                        .hasMessageContaining("onceonly.encryption.keys.k1")
                        .hasMessageContaining("32 bytes")
                        .hasMessageNotContaining(SHORT_KEY));
        assertThat(output.getAll()).doesNotContain(SHORT_KEY);
    }

    @Test
    void startupFailsOnAKeyThatIsNotBase64WithoutQuotingIt(CapturedOutput output) {
        runner.withPropertyValues("onceonly.encryption.active-key-id=k1", "onceonly.encryption.keys.k1=s3cr3t*key!")
                .run(context -> assertStartupFailure(context)
                        .isInstanceOf(IdempotencyConfigurationException.class)
                        .hasMessageContaining("'onceonly.encryption.keys.k1': is not Base64")
                        .hasMessageNotContaining("s3cr3t"));
        assertThat(output.getAll()).doesNotContain("s3cr3t");
    }

    @Test
    void startupFailsWhenTheActiveKeyIdNamesNoKey() {
        runner.withPropertyValues("onceonly.encryption.active-key-id=k2", "onceonly.encryption.keys.k1=" + KEY)
                .run(context -> assertStartupFailure(context)
                        .isInstanceOf(IdempotencyConfigurationException.class)
                        .hasMessageContaining("onceonly.encryption.active-key-id")
                        .hasMessageContaining("'k2' is not among the keys [k1]"));
    }

    // issue 12 (review): encryption was a decorator of lowest precedence, so one registered after it held plaintext
    @Test
    @SuppressWarnings("unchecked")
    void everyDecoratorWhateverItsOrderSeesOnlyCiphertext() {
        runner.withPropertyValues("onceonly.encryption.active-key-id=k1", "onceonly.encryption.keys.k1=" + KEY)
                .withConfiguration(AutoConfigurations.of(LateDecorator.class))
                .run(context -> {
                    answer(context);

                    List<StoredResponse> seen = context.getBean("completedResponses", List.class);
                    assertThat(seen).singleElement().satisfies(response -> {
                        assertThat(response.headers()).containsOnlyKeys("OnceOnly-Encrypted");
                        assertThat(response.bodyAsString()).doesNotContain("ord-42");
                    });
                });
    }

    /** A decorator of the lowest precedence from a configuration registered after the encryption's. */
    @AutoConfiguration(after = OnceOnlyEncryptionAutoConfiguration.class)
    static class LateDecorator {
        @Bean
        List<StoredResponse> completedResponses() {
            return new CopyOnWriteArrayList<>();
        }

        @Bean
        @Order(Ordered.LOWEST_PRECEDENCE)
        IdempotencyStoreDecorator recordingDecorator(List<StoredResponse> completedResponses) {
            return store -> new RecordingStore(store, completedResponses);
        }
    }

    /** Records the responses completed through it. */
    private static final class RecordingStore extends ForwardingIdempotencyStore {
        private final List<StoredResponse> seen;

        RecordingStore(IdempotencyStore delegate, List<StoredResponse> seen) {
            super(delegate);
            this.seen = seen;
        }

        @Override
        public boolean complete(IdempotencyScope scope, LeaseToken token, Completion completion, Instant now) {
            seen.add(completion.response());
            return super.complete(scope, token, completion, now);
        }
    }

    @Test
    void startupFailsOnKeysWithoutAnActiveKeyId() {
        runner.withPropertyValues("onceonly.encryption.keys.k1=" + KEY)
                .run(context -> assertStartupFailure(context)
                        .isInstanceOf(IdempotencyConfigurationException.class)
                        .hasMessageContaining("onceonly.encryption.active-key-id")
                        .hasMessageNotContaining(KEY));
    }

    private void answer(AssertableApplicationContext context) {
        context.getBean(IdempotencyEngine.class).execute(scope, Fingerprint.builder().build(),
                OutcomeCodec.identity(), attempt -> ANSWER);
    }

    /** What the store bean holds: the engine's store is the decorated one. */
    private StoredResponse storedResponse(AssertableApplicationContext context) {
        return context.getBean(IdempotencyStore.class).find(scope).orElseThrow().response();
    }

    private static String base64Key(int bytes) {
        byte[] key = new byte[bytes];
        new SecureRandom().nextBytes(key);
        return Base64.getEncoder().encodeToString(key);
    }
}
