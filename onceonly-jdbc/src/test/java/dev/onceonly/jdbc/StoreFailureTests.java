package dev.onceonly.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.OutcomeCodec;
import dev.onceonly.StoredResponse;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.Completion;
import dev.onceonly.spi.LeaseToken;
import dev.onceonly.spi.RecordState;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * What the store does when the database fails or holds rows it cannot use: an {@link IdempotencyStoreException}
 * (503), never an unchecked crash (500), and never a database message in an exception or a log line.
 */
interface StoreFailureTests extends JdbcStoreFixture {

    Instant NOW = Instant.parse("2030-06-01T00:00:00Z");

    /** Statements that create {@code table} like the store's, with a unique index on {@code resource_id}. */
    List<String> tableWithUniqueResourceIds(String table);

    // issue 8: corrupt rows were IllegalArgumentException/IllegalStateException, answered 500.
    @Test
    default void recordWithUndecodableStoredHeadersIsAStoreError() throws SQLException {
        IdempotencyScope scope = newFailureScope();
        insertRow(scope, "SUCCEEDED", 201, "a header line without a name\n");

        assertUnusable(scope);
    }

    @Test
    default void recordWithAnImpossibleStatusIsAStoreError() throws SQLException {
        IdempotencyScope scope = newFailureScope();
        insertRow(scope, "FAILED_FINAL", 999, null);

        assertUnusable(scope);
    }

    // issue 8: SQLException messages quote row values (a unique violation names the duplicate value).
    @Test
    default void databaseErrorQuotingARowValueReachesNeitherExceptionsNorLogs() throws SQLException {
        String table = "onceonly_it_unique_resource";
        try (Connection connection = dataSource().getConnection(); Statement statement = connection.createStatement()) {
            for (String ddl : tableWithUniqueResourceIds(table)) {
                statement.execute(ddl);
            }
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
        }
        JdbcIdempotencyStore store = JdbcIdempotencyStore.create(dataSource(), dialect(), table);
        String marker = "marker-" + UUID.randomUUID();
        StoredResponse quoted = StoredResponse.of(201, Map.of(), new byte[0], marker);
        IdempotencyScope first = newFailureScope();
        IdempotencyScope second = newFailureScope();
        store.complete(first, claimed(store, first), new Completion(RecordState.SUCCEEDED, quoted,
                NOW.plusSeconds(60)), NOW);

        assertThatThrownBy(() -> store.complete(second, claimed(store, second),
                new Completion(RecordState.SUCCEEDED, quoted, NOW.plusSeconds(60)), NOW))
                .isInstanceOfSatisfying(IdempotencyStoreException.class, e -> {
                    assertThat(e).hasMessageContaining("SQLState");
                    assertThat(StackTraces.printed(e)).doesNotContain(marker);
                });

        Logger engineLog = (Logger) LoggerFactory.getLogger(IdempotencyEngine.class);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        engineLog.addAppender(logged);
        try {
            IdempotencyEngine engine = IdempotencyEngine.builder(store).pollInterval(Duration.ofMillis(1)).build();
            String result = engine.execute(newFailureScope(), fingerprint(), codec(quoted), attempt -> "done").value();

            assertThat(result).isEqualTo("done");
        } finally {
            engineLog.detachAppender(logged);
        }
        assertThat(logged.list).anySatisfy(event -> assertThat(event.getThrowableProxy()).isNotNull());
        assertThat(logged.list).allSatisfy(event -> assertThat(event.getFormattedMessage()
                + (event.getThrowableProxy() == null ? "" : ThrowableProxyUtil.asString(event.getThrowableProxy())))
                .doesNotContain(marker));
    }

    private void assertUnusable(IdempotencyScope scope) {
        JdbcIdempotencyStore store = jdbcStore();
        assertThatThrownBy(() -> store.find(scope)).isInstanceOf(IdempotencyStoreException.class)
                .hasMessageContaining("corrupt");
        assertThatThrownBy(() -> store.claim(request(scope), NOW)).isInstanceOf(IdempotencyStoreException.class)
                .hasMessageContaining("corrupt");
    }

    /** Writes a finished record with plain JDBC, bypassing every check of the store. */
    default void insertRow(IdempotencyScope scope, String state, int status, String headers) throws SQLException {
        try (Connection connection = dataSource().getConnection();
                PreparedStatement insert = connection.prepareStatement("INSERT INTO "
                        + JdbcIdempotencyStore.DEFAULT_TABLE + " (owner, operation, idem_key, fingerprint, state,"
                        + " attempt, http_status, response_headers, response_body, created_at, updated_at,"
                        + " expires_at) VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?)")) {
            insert.setString(1, scope.owner());
            insert.setString(2, scope.operation());
            insert.setString(3, scope.key().value());
            insert.setBytes(4, fingerprint().digest());
            insert.setString(5, state);
            insert.setInt(6, status);
            if (headers == null) {
                insert.setNull(7, Types.VARCHAR);
            } else {
                insert.setString(7, headers);
            }
            insert.setBytes(8, new byte[0]);
            dialect().setInstant(insert, 9, NOW);
            dialect().setInstant(insert, 10, NOW);
            dialect().setInstant(insert, 11, NOW.plusSeconds(3600));
            insert.executeUpdate();
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
        }
    }

    private static LeaseToken claimed(JdbcIdempotencyStore store, IdempotencyScope scope) {
        return ((ClaimResult.Claimed) store.claim(request(scope), NOW)).token();
    }

    static IdempotencyScope newFailureScope() {
        return new IdempotencyScope("failure-" + UUID.randomUUID(), "create-order",
                IdempotencyKey.of(UUID.randomUUID().toString()));
    }

    private static ClaimRequest request(IdempotencyScope scope) {
        return new ClaimRequest(scope, fingerprint(), NOW.plusSeconds(30), NOW.plusSeconds(60), Duration.ZERO,
                false);
    }

    private static Fingerprint fingerprint() {
        return Fingerprint.builder().method("POST").route("/orders")
                .rawBody("failure".getBytes(StandardCharsets.UTF_8)).build();
    }

    private static OutcomeCodec<String> codec(StoredResponse response) {
        return new OutcomeCodec<>() {
            @Override
            public StoredResponse encode(String value) {
                return response;
            }

            @Override
            public String decode(StoredResponse stored) {
                return "replayed";
            }
        };
    }
}
