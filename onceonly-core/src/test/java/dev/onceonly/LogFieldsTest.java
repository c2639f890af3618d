package dev.onceonly;

import static dev.onceonly.TestRequests.TEXT;
import static dev.onceonly.TestRequests.request;
import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.memory.InMemoryIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/** The log fields every kind of caller gets from the engine: issue 12. */
class LogFieldsTest {

    private static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8);

    private final IdempotencyScope scope = new IdempotencyScope("alice", "create-order",
            IdempotencyKey.of(UUID.randomUUID().toString()));
    private final IdempotencyEngine engine = IdempotencyEngine.builder(new InMemoryIdempotencyStore())
            .replayCache(Duration.ZERO, 1).build();

    @AfterEach
    void clearMdc() {
        MDC.clear();
    }

    @Test
    void theWorkLogsWithOperationKeyAndAttemptAndNothingIsLeftBehind() {
        AtomicReference<Map<String, String>> during = new AtomicReference<>();

        engine.execute(scope, request("a"), TEXT, attempt -> {
            during.set(MDC.getCopyOfContextMap());
            return "done";
        });

        assertThat(during.get()).containsEntry(LogFields.OPERATION, "create-order")
                .containsEntry(LogFields.KEY, scope.key().value()).containsEntry(LogFields.ATTEMPT, "1")
                .doesNotContainKey(LogFields.REPLAYED);
        assertThat(MDC.getCopyOfContextMap()).isNullOrEmpty();
    }

    @Test
    void digestOnlyKeysAreLoggedAsTheirDigest() {
        IdempotencyEngine digests = engine.toBuilder().keyStorage(KeyStorage.hmacSha256(SECRET)).build();
        AtomicReference<String> key = new AtomicReference<>();

        digests.execute(scope, request("a"), TEXT, attempt -> {
            key.set(MDC.get(LogFields.KEY));
            return "done";
        });

        assertThat(key.get()).startsWith("hmac-sha256:").isNotEqualTo(scope.key().value());
    }

    @Test
    void aCallerThatOpenedTheFieldsKeepsThemWithTheOutcomeUntilItClosesThem() {
        engine.execute(scope, request("a"), TEXT, attempt -> "done");

        try (LogFields.Scope fields = LogFields.open(scope.operation(), scope.key())) {
            engine.execute(scope, request("a"), TEXT, attempt -> "again");

            assertThat(MDC.get(LogFields.REPLAYED)).isEqualTo("true");
            assertThat(MDC.get(LogFields.OPERATION)).isEqualTo("create-order");
        }
        assertThat(MDC.getCopyOfContextMap()).isNullOrEmpty();
    }

    @Test
    void anotherOperationInsideTheWorkHasItsOwnFieldsAndGivesTheOuterOnesBack() {
        IdempotencyScope inner = new IdempotencyScope("alice", "charge-card", IdempotencyKey.of(
                UUID.randomUUID().toString()));
        AtomicReference<String> innerOperation = new AtomicReference<>();
        AtomicReference<Map<String, String>> afterInner = new AtomicReference<>();

        engine.execute(scope, request("a"), TEXT, attempt -> {
            engine.execute(inner, request("b"), TEXT, charge -> {
                innerOperation.set(MDC.get(LogFields.OPERATION));
                return "charged";
            });
            afterInner.set(MDC.getCopyOfContextMap());
            return "done";
        });

        assertThat(innerOperation.get()).isEqualTo("charge-card");
        assertThat(afterInner.get()).containsEntry(LogFields.OPERATION, "create-order")
                .containsEntry(LogFields.KEY, scope.key().value()).containsEntry(LogFields.ATTEMPT, "1")
                .doesNotContainKey(LogFields.REPLAYED);
    }
}
