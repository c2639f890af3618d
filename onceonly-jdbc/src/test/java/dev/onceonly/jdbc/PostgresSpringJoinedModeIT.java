package dev.onceonly.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotentResult;
import dev.onceonly.OutcomeCodec;
import dev.onceonly.OutcomeUnknownException;
import dev.onceonly.StoredResponse;
import dev.onceonly.spi.CachedOutcome;
import dev.onceonly.spi.OutcomeCache;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Joined mode inside Spring's own transaction handling, on PostgreSQL: a participant that catches the work's failure
 * cannot commit the outer transaction, and a transaction of another data source is not one the store could join.
 */
class PostgresSpringJoinedModeIT {

    private static final DataSource DATA_SOURCE = TestDatabases.postgres();
    private static final JdbcTemplate JDBC = new JdbcTemplate(DATA_SOURCE);

    private final DataSourceTransactionManager transactionManager = new DataSourceTransactionManager(DATA_SOURCE);
    private final SpringTransactionRunner runner = new SpringTransactionRunner(
            new TransactionTemplate(transactionManager));
    private final IdempotencyEngine joined = IdempotencyEngine.builder(
                    JdbcIdempotencyStore.create(DATA_SOURCE, new PostgresDialect()))
            .transactions(runner).mode(IdempotencyMode.JOINED).build();
    private final String owner = "joined-" + UUID.randomUUID();

    @BeforeAll
    static void createTable() {
        JDBC.execute("CREATE TABLE IF NOT EXISTS onceonly_it_joined (id bigserial PRIMARY KEY, owner text NOT NULL)");
    }

    @Test
    void participantThatCatchesTheWorksFailureCannotCommitTheOuterTransaction() {
        IdempotencyScope scope = IdempotencyScope.of(owner, "consume",
                IdempotencyKey.of(UUID.randomUUID().toString()));
        TransactionTemplate outer = new TransactionTemplate(transactionManager);
        TransactionTemplate participant = new TransactionTemplate(transactionManager);

        assertThatThrownBy(() -> outer.executeWithoutResult(status -> participant.executeWithoutResult(inner -> {
            try {
                joined.execute(scope, Fingerprint.builder().method("MESSAGE").build(), OutcomeCodec.identity(),
                        attempt -> {
                            JDBC.update("INSERT INTO onceonly_it_joined (owner) VALUES (?)", owner);
                            throw new IllegalStateException("the handler failed half-way");
                        });
            } catch (IllegalStateException swallowed) {
                // a participant that goes on as if nothing happened
            }
        }))).isInstanceOf(UnexpectedRollbackException.class);

        assertThat(JDBC.queryForObject("SELECT count(*) FROM onceonly_it_joined WHERE owner = ?", Integer.class,
                owner)).isZero();
        assertThat(joined.find(scope)).isEmpty();
    }

    // issue 39: the outcome rolled back with the claim, and the redelivery ran the work (a remote call) again.
    @Test
    void outcomeUnknownOutlivesTheCallersRollbackSoTheRedeliveryDoesNotRunTheWorkAgain() {
        IdempotencyScope scope = IdempotencyScope.of(owner, "consume",
                IdempotencyKey.of(UUID.randomUUID().toString()));
        Fingerprint message = Fingerprint.builder().method("MESSAGE").build();
        StoredResponse unknown = StoredResponse.of(502, "{\"title\":\"the provider timed out\"}"
                .getBytes(StandardCharsets.UTF_8));
        AtomicInteger calls = new AtomicInteger();
        TransactionTemplate delivery = new TransactionTemplate(transactionManager);

        assertThatThrownBy(() -> delivery.executeWithoutResult(status -> joined.execute(scope, message,
                OutcomeCodec.identity(), attempt -> {
                    calls.incrementAndGet();
                    throw OutcomeUnknownException.storing("the remote call timed out", unknown);
                }))).isInstanceOf(OutcomeUnknownException.class);
        IdempotentResult<StoredResponse> redelivery = delivery.execute(status -> joined.execute(scope, message,
                OutcomeCodec.identity(), attempt -> {
                    calls.incrementAndGet();
                    return StoredResponse.result(new byte[0]);
                }));

        assertThat(calls).hasValue(1);
        assertThat(redelivery).isNotNull();
        assertThat(redelivery.replayed()).isTrue();
        assertThat(redelivery.value().status()).isEqualTo(502);
    }

    @Test
    void transactionOfAnotherDataSourceIsNotOneTheStoreCanJoin() {
        DataSourceTransactionManager other = new DataSourceTransactionManager(new DriverManagerDataSource(
                System.getProperty("onceonly.test.postgres.url",
                        "jdbc:postgresql://127.0.0.1:5432/test?user=postgres")));

        Boolean insideOther = new TransactionTemplate(other).execute(status -> runner.isTransactionActive());
        Boolean insideOwn = new TransactionTemplate(transactionManager).execute(status -> runner.isTransactionActive());

        assertThat(insideOther).isFalse();
        assertThat(insideOwn).isTrue();
        assertThat(runner.isTransactionActive()).isFalse();
    }

    /**
     * Another instance's marker for the key, and the caller's transaction already holds the key's record, not yet
     * committed (a batch that carries one message twice): the second call replays that record, but must not give it
     * to the shared cache, from where every instance would replay an outcome that may still roll back.
     */
    @Test
    void aRecordOfTheCallersOwnTransactionIsReplayedButNotSharedWhileAMarkerStands() {
        IdempotencyScope scope = IdempotencyScope.of(owner, "consume",
                IdempotencyKey.of(UUID.randomUUID().toString()));
        Fingerprint message = Fingerprint.builder().method("MESSAGE").build();
        MarkedElsewhere shared = new MarkedElsewhere(message);
        IdempotencyEngine withMarker = IdempotencyEngine.builder(
                        JdbcIdempotencyStore.create(DATA_SOURCE, new PostgresDialect()))
                .transactions(runner).mode(IdempotencyMode.JOINED).outcomeCache(shared)
                .waitTimeout(Duration.ofMillis(100)).build();

        assertThatThrownBy(() -> new TransactionTemplate(transactionManager).executeWithoutResult(status -> {
            StoredResponse first = withMarker.execute(scope, message, OutcomeCodec.identity(),
                    attempt -> StoredResponse.of(200, "consumed".getBytes(StandardCharsets.UTF_8))).value();
            IdempotentResult<StoredResponse> again = withMarker.execute(scope, message, OutcomeCodec.identity(),
                    attempt -> StoredResponse.of(200, "twice".getBytes(StandardCharsets.UTF_8)));
            assertThat(again.replayed()).isTrue();
            assertThat(again.value().bodyAsString()).isEqualTo(first.bodyAsString());
            throw new IllegalStateException("the batch fails after all");
        })).isInstanceOf(IllegalStateException.class);

        assertThat(shared.remembered).isEmpty();
        assertThat(joined.find(scope)).isEmpty();
    }

    /** A shared cache in which another instance's attempt at every key started, and which records what it keeps. */
    private static final class MarkedElsewhere implements OutcomeCache {
        final List<CachedOutcome> remembered = new CopyOnWriteArrayList<>();
        private final Fingerprint fingerprint;

        MarkedElsewhere(Fingerprint fingerprint) {
            this.fingerprint = fingerprint;
        }

        @Override
        public Entry enter(IdempotencyScope scope, Fingerprint request, boolean writesOnce) {
            return new Running(fingerprint);
        }

        @Override
        public void remember(IdempotencyScope scope, CachedOutcome outcome) {
            remembered.add(outcome);
        }

        @Override
        public void leave(IdempotencyScope scope, Marker marker) {
        }
    }
}
