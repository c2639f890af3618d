package dev.onceonly.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.CapturedLogs;
import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.IdempotentResult;
import dev.onceonly.KeyStorage;
import dev.onceonly.OutcomeCodec;
import dev.onceonly.StoredResponse;
import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.Completion;
import dev.onceonly.spi.ForwardingIdempotencyStore;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.RecordState;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Encryption at rest through the engine, on the in-memory store (issue 12). */
class EncryptingIdempotencyStoreTest {

    private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");
    private static final byte[] KEY_2025 = randomKey();
    private static final byte[] KEY_2026 = randomKey();
    private static final EncryptionKeys ONLY_2025 = EncryptionKeys.of("k2025", Map.of("k2025", KEY_2025));
    private static final EncryptionKeys ROTATED = EncryptionKeys.of("k2026", Map.of("k2025", KEY_2025,
            "k2026", KEY_2026));
    private static final EncryptionKeys ONLY_2026 = EncryptionKeys.of("k2026", Map.of("k2026", KEY_2026));
    private static final Fingerprint REQUEST = Fingerprint.builder().method("POST").route("/orders")
            .jsonBody("{\"sku\":\"A-1\"}".getBytes(StandardCharsets.UTF_8)).build();
    private static final String ORDER_ID = "ord-7f3a91";
    private static final String CARD = "4111111111111111";
    private static final StoredResponse FIRST_ANSWER = StoredResponse.of(201, headers(
            "Content-Type", "application/json",
            "Location", "/orders/" + ORDER_ID,
            "Content-Disposition", "attachment; filename=\"alice-invoice.pdf\""),
            ("{\"orderId\":\"" + ORDER_ID + "\",\"card\":\"" + CARD + "\"}").getBytes(StandardCharsets.UTF_8),
            ORDER_ID);

    private final InMemoryIdempotencyStore records = new InMemoryIdempotencyStore();
    private final IdempotencyScope scope = newScope();
    private final AtomicInteger executions = new AtomicInteger();
    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();

    @Test
    void storedResponseHidesBodyAndHeadersButKeepsStatusAndResourceId() {
        answerOnce(new EncryptingIdempotencyStore(records, ROTATED));

        StoredResponse stored = records.find(scope).orElseThrow().response();

        assertThat(stored.headers()).containsOnlyKeys("OnceOnly-Encrypted");
        assertThat(stored.bodyAsString()).doesNotContain(ORDER_ID, CARD, "alice-invoice", "application/json");
        assertThat(stored.status()).isEqualTo(201);
        assertThat(stored.resourceId()).isEqualTo(ORDER_ID);
    }

    @Test
    void anOutcomeWrittenOnceIsSealedLikeACompletedOneAndTheCapabilityIsTheStoreBeneaths() {
        EncryptingIdempotencyStore encrypting = new EncryptingIdempotencyStore(new WritingOnce(records), ROTATED);
        ClaimRequest request = new ClaimRequest(scope, REQUEST, NOW, NOW.plus(Duration.ofDays(1)), Duration.ZERO,
                true);

        assertThat(encrypting.insertsFinished()).isTrue();
        assertThat(new EncryptingIdempotencyStore(records, ROTATED).insertsFinished()).isFalse();
        assertThat(encrypting.insertFinished(request, new Completion(RecordState.SUCCEEDED, FIRST_ANSWER,
                NOW.plus(Duration.ofDays(1))), NOW)).isEqualTo(IdempotencyStore.Insertion.INSERTED);

        StoredResponse stored = records.find(scope).orElseThrow().response();
        assertThat(stored.headers()).containsOnlyKeys("OnceOnly-Encrypted");
        assertThat(stored.bodyAsString()).doesNotContain(ORDER_ID, CARD);
        assertThat(encrypting.find(scope).orElseThrow().response()).isEqualTo(FIRST_ANSWER);
    }

    /** A store beneath that writes finished outcomes once (as the JDBC store does), here by claim and completion. */
    private static final class WritingOnce extends ForwardingIdempotencyStore {
        WritingOnce(IdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        public boolean insertsFinished() {
            return true;
        }

        @Override
        public Insertion insertFinished(ClaimRequest request, Completion completion, Instant now) {
            ClaimRequest own = new ClaimRequest(request.scope(), request.fingerprint(), request.leaseExpiresAt(),
                    request.expiresAt(), request.lockWait(), false);
            if (!(delegate().claim(own, now) instanceof ClaimResult.Claimed claimed)) {
                return Insertion.EXISTS;
            }
            delegate().complete(request.scope(), claimed.token(), completion, now);
            return Insertion.INSERTED;
        }
    }

    @Test
    void replayIsByteIdenticalToTheFirstAnswer() {
        IdempotencyStore encrypting = new EncryptingIdempotencyStore(records, ROTATED);
        IdempotentResult<StoredResponse> first = answerOnce(encrypting);

        IdempotentResult<StoredResponse> replay = answerOnce(encrypting);

        assertThat(replay.replayed()).isTrue();
        assertSameAnswer(replay.value(), first.value());
        assertThat(executions).hasValue(1);
    }

    @Test
    void sameResponseIsNeverStoredAsTheSameCiphertextTwice() {
        IdempotencyScope other = newScope();
        IdempotencyStore encrypting = new EncryptingIdempotencyStore(records, ROTATED);
        answerOnce(encrypting);
        answerOnce(encrypting, other);

        byte[] one = records.find(scope).orElseThrow().response().body();
        byte[] two = records.find(other).orElseThrow().response().body();

        assertThat(one).isNotEqualTo(two);
    }

    @Test
    void recordWrittenUnderAnOldKeyStillReplaysAfterRotation() {
        answerOnce(new EncryptingIdempotencyStore(records, ONLY_2025));

        IdempotentResult<StoredResponse> replay = answerOnce(new EncryptingIdempotencyStore(records, ROTATED));

        assertThat(replay.replayed()).isTrue();
        assertSameAnswer(replay.value(), FIRST_ANSWER);
    }

    @Test
    void afterRotationNewRecordsAreWrittenUnderTheActiveKey() {
        answerOnce(new EncryptingIdempotencyStore(records, ROTATED));

        IdempotentResult<StoredResponse> replay = answerOnce(new EncryptingIdempotencyStore(records, ONLY_2026));

        assertSameAnswer(replay.value(), FIRST_ANSWER);
    }

    @Test
    void recordWhoseKeyWasRemovedFailsClosedInsteadOfReplaying() {
        answerOnce(new EncryptingIdempotencyStore(records, ONLY_2025));

        assertThatThrownBy(() -> answerOnce(new EncryptingIdempotencyStore(records, ONLY_2026)))
                .isInstanceOfSatisfying(IdempotencyStoreException.class, e -> {
                    assertThat(e.problemType()).isEqualTo("idempotency-store-unavailable");
                    assertThat(e).hasMessageContaining("key 'k2025'").hasMessageContaining("create-order");
                    assertNoKeyMaterialIn(e);
                });
        assertThat(executions).hasValue(1);
    }

    // issue 12 (review): an instance without encryption replayed the envelope as the answer
    @Test
    void engineWithoutEncryptionRefusesAnEncryptedRecordInsteadOfReplayingCiphertext() {
        answerOnce(new EncryptingIdempotencyStore(records, ONLY_2025));

        assertThatThrownBy(() -> answerOnce(records)).isInstanceOfSatisfying(IdempotencyStoreException.class,
                e -> assertThat(e.problemType()).isEqualTo("idempotency-store-unavailable"));
        assertThat(executions).hasValue(1);
    }

    @Test
    void keyIdForgedInTheTableNeverReachesAMessage() {
        StoredResponse sealed = sealedAnswer();
        byte[] body = sealed.body();
        body[2] = '\n';

        IdempotencyStore forged = recordOf(scope, StoredResponse.of(sealed.status(), sealed.headers(), body,
                sealed.resourceId()));

        assertThatThrownBy(() -> answerOnce(new EncryptingIdempotencyStore(forged, ROTATED)))
                .isInstanceOfSatisfying(IdempotencyStoreException.class,
                        e -> assertThat(e.getMessage()).doesNotContain("\n").contains("no valid key id"));
    }

    @Test
    void alteredCiphertextFailsClosed() {
        StoredResponse sealed = sealedAnswer();
        byte[] body = sealed.body();
        body[body.length - 1] ^= 1;

        assertFailsAuthentication(recordOf(scope, StoredResponse.of(sealed.status(), sealed.headers(), body,
                sealed.resourceId())));
    }

    @Test
    void alteredStatusFailsClosed() {
        StoredResponse sealed = sealedAnswer();

        assertFailsAuthentication(recordOf(scope, StoredResponse.of(200, sealed.headers(), sealed.body(),
                sealed.resourceId())));
    }

    @Test
    void ciphertextCopiedToAnotherRecordFailsClosed() {
        StoredResponse sealed = sealedAnswer();

        IdempotencyScope bobs = new IdempotencyScope("bob", scope.operation(), scope.key());
        assertThatThrownBy(() -> answerOnce(new EncryptingIdempotencyStore(recordOf(bobs, sealed), ROTATED), bobs))
                .isInstanceOf(IdempotencyStoreException.class).hasMessageContaining("failed authentication");
    }

    @Test
    void responseStoredBeforeEncryptionWasSwitchedOnStillReplays() {
        answerOnce(records);

        IdempotentResult<StoredResponse> replay = answerOnce(new EncryptingIdempotencyStore(records, ROTATED));

        assertThat(replay.replayed()).isTrue();
        assertSameAnswer(replay.value(), FIRST_ANSWER);
    }

    @Test
    void responseStoredWithoutEncryptionFailsClosedOncePlaintextIsRefused() {
        answerOnce(records);

        assertThatThrownBy(() -> answerOnce(new EncryptingIdempotencyStore(records, ROTATED.refusingPlaintext())))
                .isInstanceOf(IdempotencyStoreException.class).hasMessageContaining("not encrypted");
        assertThat(executions).hasValue(1);
    }

    @Test
    void digestOnlyKeysAndEncryptionTogetherStillReplay() {
        IdempotencyStore encrypting = new EncryptingIdempotencyStore(records, ROTATED);
        KeyStorage digests = KeyStorage.hmacSha256(KEY_2026);
        answerOnce(encrypting, digests);

        IdempotentResult<StoredResponse> replay = answerOnce(encrypting, digests);

        assertThat(replay.replayed()).isTrue();
        assertSameAnswer(replay.value(), FIRST_ANSWER);
        assertThat(records.find(digests.stored(scope)).orElseThrow().response().headers())
                .containsOnlyKeys("OnceOnly-Encrypted");
    }

    @Test
    void keyMaterialIsNeverLoggedNorDescribed() {
        answerOnce(new EncryptingIdempotencyStore(records, ONLY_2025));
        List<String> texts = new ArrayList<>(List.of(ROTATED.toString(),
                new EncryptingIdempotencyStore(records, ROTATED).toString()));

        try {
            answerOnce(new EncryptingIdempotencyStore(records, ONLY_2026));
        } catch (IdempotencyStoreException e) {
            texts.add(e.getMessage());
        }

        logs.events().forEach(event -> texts.add(event.getFormattedMessage()));
        assertThat(texts).hasSizeGreaterThan(2).allSatisfy(text -> assertNoKeyMaterialIn(text));
    }

    private void assertFailsAuthentication(IdempotencyStore tampered) {
        assertThatThrownBy(() -> answerOnce(new EncryptingIdempotencyStore(tampered, ROTATED)))
                .isInstanceOfSatisfying(IdempotencyStoreException.class, e -> {
                    assertThat(e).hasMessageContaining("failed authentication");
                    assertNoKeyMaterialIn(e);
                });
    }

    /** The encrypted form of the first answer, as the wrapped store received it. */
    private StoredResponse sealedAnswer() {
        answerOnce(new EncryptingIdempotencyStore(records, ROTATED));
        executions.set(0);
        return records.find(scope).orElseThrow().response();
    }

    /** A store that holds {@code response} for {@code scope}, as a database row someone wrote directly would. */
    private static IdempotencyStore recordOf(IdempotencyScope scope, StoredResponse response) {
        InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
        ClaimResult.Claimed claimed = (ClaimResult.Claimed) store.claim(new ClaimRequest(scope, REQUEST,
                NOW.plusSeconds(30), NOW.plus(Duration.ofDays(1)), Duration.ZERO, false), NOW);
        store.complete(scope, claimed.token(), new Completion(RecordState.SUCCEEDED, response,
                NOW.plus(Duration.ofDays(1))), NOW);
        return store;
    }

    private IdempotentResult<StoredResponse> answerOnce(IdempotencyStore store) {
        return answerOnce(store, scope);
    }

    private IdempotentResult<StoredResponse> answerOnce(IdempotencyStore store, IdempotencyScope scope) {
        return answerOnce(store, scope, KeyStorage.raw());
    }

    private IdempotentResult<StoredResponse> answerOnce(IdempotencyStore store, KeyStorage keyStorage) {
        return answerOnce(store, scope, keyStorage);
    }

    /** A fresh engine each time, so that a replay comes from the store and not from the engine's memory. */
    private IdempotentResult<StoredResponse> answerOnce(IdempotencyStore store, IdempotencyScope scope,
            KeyStorage keyStorage) {
        IdempotencyEngine engine = IdempotencyEngine.builder(store).clock(Clock.fixed(NOW, ZoneOffset.UTC))
                .waitTimeout(Duration.ZERO).keyStorage(keyStorage).build();
        return engine.execute(scope, REQUEST, OutcomeCodec.identity(), attempt -> {
            executions.incrementAndGet();
            return FIRST_ANSWER;
        });
    }

    private static void assertSameAnswer(StoredResponse actual, StoredResponse expected) {
        assertThat(actual).isEqualTo(expected);
        assertThat(List.copyOf(actual.headers().keySet())).isEqualTo(List.copyOf(expected.headers().keySet()));
    }

    private static void assertNoKeyMaterialIn(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            assertNoKeyMaterialIn(String.valueOf(t.getMessage()));
        }
    }

    private static void assertNoKeyMaterialIn(String text) {
        for (byte[] key : List.of(KEY_2025, KEY_2026)) {
            assertThat(text).doesNotContain(Base64.getEncoder().encodeToString(key))
                    .doesNotContainIgnoringCase(HexFormat.of().formatHex(key))
                    .doesNotContain(new String(key, StandardCharsets.ISO_8859_1));
        }
    }

    private static IdempotencyScope newScope() {
        return new IdempotencyScope("alice", "create-order", IdempotencyKey.of(UUID.randomUUID().toString()));
    }

    private static Map<String, List<String>> headers(String... namesAndValues) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            headers.put(namesAndValues[i], List.of(namesAndValues[i + 1]));
        }
        return headers;
    }

    private static byte[] randomKey() {
        byte[] key = new byte[EncryptionKeys.KEY_LENGTH];
        new SecureRandom().nextBytes(key);
        return key;
    }
}
