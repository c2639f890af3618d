package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.IdempotencyRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Keys stored only as digests: nothing downstream of the engine sees the raw key. Issue 12 (privacy). */
class DigestKeysTest {

    private static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8);
    private static final OutcomeCodec<StoredResponse> CODEC = OutcomeCodec.identity();

    private final String rawKey = "customer-4711-" + UUID.randomUUID();
    private final IdempotencyScope scope = IdempotencyScope.of("alice", "pay", IdempotencyKey.of(rawKey));
    private final Fingerprint fingerprint = Fingerprint.builder().method("POST").route("/pay").build();
    private final Fingerprint otherRequest = Fingerprint.builder().method("POST").route("/refund").build();
    private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
    private final AtomicInteger executions = new AtomicInteger();

    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();

    private IdempotencyEngine engine(KeyStorage keyStorage) {
        return IdempotencyEngine.builder(store).keyStorage(keyStorage).waitTimeout(Duration.ZERO).build();
    }

    private StoredResponse pay(Attempt attempt) {
        executions.incrementAndGet();
        return StoredResponse.of(201, "{\"paid\":true}".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void digestOnlyStoresTheKeyedDigestAndNeverTheRawKey() {
        IdempotencyEngine engine = engine(KeyStorage.hmacSha256(SECRET));

        engine.execute(scope, fingerprint, CODEC, this::pay);

        assertThat(store.find(scope)).isEmpty();
        IdempotencyRecord record = engine.find(scope).orElseThrow();
        assertThat(record.scope().key().value()).startsWith("hmac-sha256:").doesNotContain(rawKey).hasSize(55);
        assertThat(record.scope()).isEqualTo(KeyStorage.hmacSha256(SECRET).stored(scope));
    }

    @Test
    void digestOnlyReplaysAndRefusesAReusedKeyAsBefore() {
        IdempotencyEngine engine = engine(KeyStorage.hmacSha256(SECRET));

        IdempotentResult<StoredResponse> first = engine.execute(scope, fingerprint, CODEC, this::pay);
        IdempotentResult<StoredResponse> retry = engine.execute(scope, fingerprint, CODEC, this::pay);

        assertThat(first.replayed()).isFalse();
        assertThat(retry.replayed()).isTrue();
        assertThat(retry.value().body()).isEqualTo(first.value().body());
        assertThat(executions).hasValue(1);
        assertThatThrownBy(() -> engine.execute(scope, otherRequest, CODEC, this::pay))
                .isInstanceOf(IdempotencyKeyReusedException.class)
                .hasMessageNotContaining("hmac-sha256:").hasMessageNotContaining(rawKey);
    }

    @Test
    void requestInProgressNamesNeitherTheKeyNorItsDigest() {
        IdempotencyEngine engine = engine(KeyStorage.sha256());

        assertThatThrownBy(() -> engine.execute(scope, fingerprint, CODEC,
                attempt -> engine.execute(scope, fingerprint, CODEC, this::pay).value()))
                .isInstanceOf(RequestInProgressException.class)
                .hasMessageNotContaining("sha256:").hasMessageNotContaining(rawKey);
    }

    @Test
    void digestOnlyNeverLogsTheRawKey() {
        IdempotencyEngine engine = engine(KeyStorage.sha256());

        engine.execute(scope, fingerprint, CODEC, this::pay);
        engine.execute(scope, fingerprint, CODEC, this::pay);
        assertThatThrownBy(() -> engine.execute(scope, otherRequest, CODEC, this::pay))
                .isInstanceOf(IdempotencyKeyReusedException.class);

        assertThat(logs.events()).isNotEmpty().allSatisfy(event -> assertThat(event.getFormattedMessage())
                .doesNotContain(rawKey));
        assertThat(logs.events()).anySatisfy(event -> assertThat(event.getFormattedMessage()).contains("sha256:"));
    }

    @Test
    void plainDigestIsTheBase64UrlSha256OfTheKey() {
        IdempotencyKey stored = KeyStorage.sha256().stored(IdempotencyKey.of("abc-0123456789abc"));

        // From: printf %s abc-0123456789abc | openssl sha256 -binary | basenc --base64url (then unpadded)
        assertThat(stored.value()).isEqualTo("sha256:yyGJiMzOKNB74Kd7_omzZ4zsecW22CqPsceQtMlrTxc");
    }

    @Test
    void hmacDigestDependsOnTheSecret() {
        byte[] otherSecret = "fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.UTF_8);

        IdempotencyKey one = KeyStorage.hmacSha256(SECRET).stored(scope.key());
        IdempotencyKey other = KeyStorage.hmacSha256(otherSecret).stored(scope.key());

        assertThat(one).isNotEqualTo(other).isEqualTo(KeyStorage.hmacSha256(SECRET).stored(scope.key()));
        assertThat(one).isNotEqualTo(KeyStorage.sha256().stored(scope.key()));
    }

    @Test
    void shortHmacSecretIsRefused() {
        assertThatThrownBy(() -> KeyStorage.hmacSha256(new byte[31]))
                .isInstanceOf(IdempotencyConfigurationException.class)
                .hasMessageContaining("at least 32 bytes");
    }

    @Test
    void rawStorageKeepsTheKeyAsSent() {
        IdempotencyEngine engine = engine(KeyStorage.raw());

        engine.execute(scope, fingerprint, CODEC, this::pay);

        assertThat(store.find(scope)).map(IdempotencyRecord::scope).contains(scope);
        assertThat(engine.find(scope)).map(IdempotencyRecord::scope).contains(scope);
    }

    @Test
    void operationsKeepTheDigest() {
        IdempotencyEngine variant = engine(KeyStorage.hmacSha256(SECRET))
                .forOperation(OperationPolicy.ENGINE_DEFAULTS.withWaitTimeout(Duration.ZERO));

        variant.execute(scope, fingerprint, CODEC, this::pay);

        assertThat(store.find(scope)).isEmpty();
        assertThat(variant.find(scope)).isPresent();
    }
}
