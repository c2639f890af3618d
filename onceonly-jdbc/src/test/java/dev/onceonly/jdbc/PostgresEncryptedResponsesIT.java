package dev.onceonly.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotentResult;
import dev.onceonly.OutcomeCodec;
import dev.onceonly.StoredResponse;
import dev.onceonly.crypto.EncryptingIdempotencyStore;
import dev.onceonly.crypto.EncryptionKeys;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** Encryption at rest on the real JDBC store: the row, read with plain JDBC, holds no plaintext (issue 12). */
class PostgresEncryptedResponsesIT {

    private static final String ORDER_ID = "ord-" + UUID.randomUUID();
    private static final StoredResponse FIRST_ANSWER = StoredResponse.of(201, headers(),
            ("{\"orderId\":\"" + ORDER_ID + "\",\"iban\":\"DE89370400440532013000\"}")
                    .getBytes(StandardCharsets.UTF_8), ORDER_ID);
    private static final Fingerprint REQUEST = Fingerprint.builder().method("POST").route("/api/orders")
            .jsonBody("{\"sku\":1}".getBytes(StandardCharsets.UTF_8)).build();

    private final DataSource dataSource = TestDatabases.postgres();
    private final byte[] oldKey = randomKey();
    private final EncryptionKeys beforeRotation = EncryptionKeys.of("k1", Map.of("k1", oldKey));
    private final EncryptionKeys afterRotation = EncryptionKeys.of("k2", Map.of("k1", oldKey, "k2", randomKey()));
    private final IdempotencyScope scope = IdempotencyScope.of("crypto-it", "create-order",
            IdempotencyKey.of(UUID.randomUUID().toString()));

    @Test
    void rowHoldsCiphertextInsteadOfBodyAndHeadersAndKeepsStatusAndResourceId() {
        answerOnce(beforeRotation);

        Map<String, Object> row = new JdbcTemplate(dataSource).queryForMap("SELECT http_status, response_headers,"
                + " response_body, resource_id FROM " + JdbcIdempotencyStore.DEFAULT_TABLE
                + " WHERE owner = ? AND operation = ? AND idem_key = ?", scope.owner(), scope.operation(),
                scope.key().value());

        assertThat(row.get("response_headers")).isEqualTo("OnceOnly-Encrypted: 1\n");
        assertThat(new String((byte[]) row.get("response_body"), StandardCharsets.ISO_8859_1))
                .doesNotContain(ORDER_ID, "DE89370400440532013000", "/api/orders/", "application/json");
        assertThat(((Number) row.get("http_status")).intValue()).isEqualTo(201);
        assertThat(row.get("resource_id")).isEqualTo(ORDER_ID);
    }

    @Test
    void replayFromTheDatabaseAfterKeyRotationIsByteIdenticalToTheFirstAnswer() {
        IdempotentResult<StoredResponse> first = answerOnce(beforeRotation);

        IdempotentResult<StoredResponse> replay = answerOnce(afterRotation);

        assertThat(first.replayed()).isFalse();
        assertThat(replay.replayed()).isTrue();
        assertThat(replay.value()).isEqualTo(FIRST_ANSWER);
        assertThat(List.copyOf(replay.value().headers().keySet()))
                .isEqualTo(List.copyOf(FIRST_ANSWER.headers().keySet()));
    }

    /** Transactional mode, as the starter runs on PostgreSQL; a fresh engine, so a replay comes from the row. */
    private IdempotentResult<StoredResponse> answerOnce(EncryptionKeys keys) {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.create(dataSource, new PostgresDialect());
        IdempotencyEngine engine = IdempotencyEngine.builder(new EncryptingIdempotencyStore(store, keys))
                .transactions(new SpringTransactionRunner(new TransactionTemplate(
                        new DataSourceTransactionManager(dataSource))))
                .waitTimeout(Duration.ZERO)
                .build();
        return engine.execute(scope, REQUEST, OutcomeCodec.identity(), attempt -> FIRST_ANSWER);
    }

    private static Map<String, List<String>> headers() {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        headers.put("Location", List.of("/api/orders/" + ORDER_ID));
        headers.put("Content-Type", List.of("application/json"));
        return headers;
    }

    private static byte[] randomKey() {
        byte[] key = new byte[EncryptionKeys.KEY_LENGTH];
        new SecureRandom().nextBytes(key);
        return key;
    }
}
