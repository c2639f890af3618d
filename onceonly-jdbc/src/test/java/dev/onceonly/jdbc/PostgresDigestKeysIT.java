package dev.onceonly.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyKeyReusedException;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotentResult;
import dev.onceonly.KeyStorage;
import dev.onceonly.spi.IdempotencyRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** Digest-only keys through the real JDBC store: the table never holds the raw key. Issue 12 (privacy). */
class PostgresDigestKeysIT {

    private static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8);

    private final DataSource dataSource = TestDatabases.postgres();
    private final JdbcTemplate jdbc = new JdbcTemplate(dataSource);
    private final String owner = "digest-" + UUID.randomUUID();
    private final String rawKey = "iban-DE89370400440532013000-" + UUID.randomUUID();
    private final IdempotencyScope scope = IdempotencyScope.of(owner, "pay", IdempotencyKey.of(rawKey));
    private final Fingerprint fingerprint = Fingerprint.builder().method("POST").route("/pay").build();

    private IdempotencyEngine engine(KeyStorage keyStorage) {
        return IdempotencyEngine.builder(JdbcIdempotencyStore.create(dataSource, new PostgresDialect()))
                .transactions(new SpringTransactionRunner(new TransactionTemplate(
                        new DataSourceTransactionManager(dataSource))))
                .replayCache(Duration.ZERO, 1)
                .keyStorage(keyStorage)
                .build();
    }

    /** Every column of the owner's rows, as PostgreSQL prints the row. */
    private List<String> rowsAsText() {
        return jdbc.queryForList("SELECT r::text FROM onceonly_record r WHERE owner = ?", String.class, owner);
    }

    @Test
    void digestOnlyWritesNoRawKeyAndStillReplaysAndRefuses() {
        IdempotencyEngine engine = engine(KeyStorage.hmacSha256(SECRET));

        IdempotentResult<String> first = engine.execute(scope, fingerprint, new TextCodec(), attempt -> "paid");
        IdempotentResult<String> retry = engine.execute(scope, fingerprint, new TextCodec(), attempt -> "paid twice");

        assertThat(first).isEqualTo(new IdempotentResult<>("paid", false));
        assertThat(retry).isEqualTo(new IdempotentResult<>("paid", true));
        assertThatThrownBy(() -> engine.execute(scope, Fingerprint.builder().method("POST").route("/refund").build(),
                new TextCodec(), attempt -> "refunded"))
                .isInstanceOf(IdempotencyKeyReusedException.class).hasMessageNotContaining(rawKey);
        String storedKey = KeyStorage.hmacSha256(SECRET).stored(scope.key()).value();
        assertThat(jdbc.queryForList("SELECT idem_key FROM onceonly_record WHERE owner = ?", String.class, owner))
                .containsExactly(storedKey);
        assertThat(rowsAsText()).singleElement().asString().doesNotContain(rawKey);
    }

    @Test
    void digestOnlyRecordIsFoundByTheRawKey() {
        IdempotencyEngine engine = engine(KeyStorage.hmacSha256(SECRET));
        engine.execute(scope, fingerprint, new TextCodec(), attempt -> "paid");

        IdempotencyRecord found = engine.find(scope).orElseThrow();

        assertThat(found.scope().key().value()).startsWith("hmac-sha256:");
        assertThat(found.response()).isNotNull();
        assertThat(found.response().bodyAsString()).isEqualTo("paid");
    }

    @Test
    void rawStorageWritesTheKeyAsSent() {
        IdempotencyEngine engine = engine(KeyStorage.raw());

        engine.execute(scope, fingerprint, new TextCodec(), attempt -> "paid");

        assertThat(jdbc.queryForList("SELECT idem_key FROM onceonly_record WHERE owner = ?", String.class, owner))
                .containsExactly(rawKey);
    }
}
