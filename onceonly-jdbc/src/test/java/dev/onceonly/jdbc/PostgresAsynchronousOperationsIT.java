package dev.onceonly.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotentResult;
import dev.onceonly.OutcomeCodec;
import dev.onceonly.Resumption;
import dev.onceonly.RetryPolicy;
import dev.onceonly.StoredResponse;
import dev.onceonly.Submission;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.ForwardingIdempotencyStore;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.RecordState;
import dev.onceonly.tck.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Asynchronous operations on PostgreSQL: the record and the worker's task commit together, duplicates never run
 * anything, and the worker's attempts follow the record.
 */
class PostgresAsynchronousOperationsIT {

    private static final DataSource DATA_SOURCE = TestDatabases.postgres();
    private static final OutcomeCodec<String> WITH_STATUS = OutcomeCodec.of(
            result -> StoredResponse.of(Integer.parseInt(result.substring(0, 3)),
                    result.getBytes(StandardCharsets.UTF_8)), StoredResponse::bodyAsString);

    private final JdbcTemplate jdbc = new JdbcTemplate(DATA_SOURCE);
    private final IdempotencyScope scope = IdempotencyScope.of("async-" + UUID.randomUUID(), "pay-order",
            IdempotencyKey.of(UUID.randomUUID().toString()));
    private final Fingerprint request = Fingerprint.builder().method("POST").route("/api/orders/1/payments")
            .jsonBody("{\"amount\":1200}".getBytes(StandardCharsets.UTF_8)).build();
    private final AtomicInteger calls = new AtomicInteger();

    @BeforeAll
    static void schema() {
        JdbcSchema.migrate(DATA_SOURCE, new PostgresDialect());
        new JdbcTemplate(DATA_SOURCE).execute("CREATE TABLE IF NOT EXISTS onceonly_it_task ("
                + " owner varchar(255) NOT NULL, idem_key varchar(255) NOT NULL)");
    }

    private IdempotencyEngine engine(Clock clock, RetryPolicy retries) {
        return IdempotencyEngine.builder(JdbcIdempotencyStore.create(DATA_SOURCE, new PostgresDialect()))
                .transactions(new SpringTransactionRunner(new TransactionTemplate(
                        new DataSourceTransactionManager(DATA_SOURCE))))
                .clock(clock).retryPolicy(retries).build();
    }

    private final IdempotencyEngine engine = engine(Clock.systemUTC(), RetryPolicy.DEFAULT);

    /** Stores the worker's task in the submission's transaction, as a task queue on the same database does. */
    private final Consumer<IdempotencyScope> enqueue = stored -> jdbc.update(
            "INSERT INTO onceonly_it_task (owner, idem_key) VALUES (?, ?)", stored.owner(), stored.key().value());

    private int tasks() {
        return jdbc.queryForObject("SELECT count(*) FROM onceonly_it_task WHERE owner = ?", Integer.class,
                scope.owner());
    }

    @Test
    void submissionStoresTheQueuedRecordAndItsTaskTogetherAndRunsNothing() {
        Submission<String> accepted = engine.submit(scope, request, WITH_STATUS, enqueue);

        assertThat(accepted).isInstanceOfSatisfying(Submission.Accepted.class, a -> {
            assertThat(a.created()).isTrue();
            assertThat(a.record().state()).isEqualTo(RecordState.PROCESSING);
        });
        assertThat(tasks()).isEqualTo(1);
        assertThat(calls).hasValue(0);
    }

    @Test
    void submissionAndItsDuplicateAreOneClaimEachWithNoReadBeforeOrAfter() {
        AtomicInteger claims = new AtomicInteger();
        AtomicInteger finds = new AtomicInteger();
        IdempotencyStore counting = new ForwardingIdempotencyStore(JdbcIdempotencyStore.create(DATA_SOURCE,
                new PostgresDialect())) {
            @Override
            public ClaimResult claim(ClaimRequest request, Instant now) {
                claims.incrementAndGet();
                return super.claim(request, now);
            }

            @Override
            public Optional<IdempotencyRecord> find(IdempotencyScope scope) {
                finds.incrementAndGet();
                return super.find(scope);
            }
        };
        IdempotencyEngine counted = IdempotencyEngine.builder(counting)
                .transactions(new SpringTransactionRunner(new TransactionTemplate(
                        new DataSourceTransactionManager(DATA_SOURCE)))).build();

        Submission<String> accepted = counted.submit(scope, request, WITH_STATUS, enqueue);
        Submission<String> duplicate = counted.submit(scope, request, WITH_STATUS, enqueue);

        assertThat(claims).hasValue(2);
        assertThat(finds).hasValue(0);
        // The accepted record is the one the claim wrote; its times are the request's, at the store's precision
        // only where the store read them back (the duplicate's).
        IdempotencyRecord written = ((Submission.Accepted<String>) accepted).record();
        IdempotencyRecord read = ((Submission.Accepted<String>) duplicate).record();
        assertThat(written.state()).isEqualTo(read.state()).isEqualTo(RecordState.PROCESSING);
        assertThat(written.token()).isEqualTo(read.token());
        assertThat(written.failures()).isEqualTo(read.failures()).isZero();
        assertThat(written.fingerprint()).isEqualTo(read.fingerprint());
    }

    @Test
    void aTaskThatCannotBeStoredRollsTheRecordBackToo() {
        assertThatThrownBy(() -> engine.submit(scope, request, WITH_STATUS, stored -> {
            enqueue.accept(stored);
            throw new IllegalStateException("queue full");
        })).isInstanceOf(IllegalStateException.class);

        assertThat(engine.find(scope)).isEmpty();
        assertThat(tasks()).isZero();
    }

    @Test
    void duplicatesReadTheCurrentStateAndGetTheStoredOutcomeOnceTheWorkerFinished() {
        engine.submit(scope, request, WITH_STATUS, enqueue);
        Submission<String> whileQueued = engine.submit(scope, request, WITH_STATUS, stored -> { });
        IdempotencyScope stored = ((Submission.Accepted<String>) whileQueued).record().scope();

        Resumption done = engine.resume(stored, WITH_STATUS, attempt -> "201 charged " + calls.incrementAndGet());
        Submission<String> afterwards = engine.submit(scope, request, WITH_STATUS, enqueue);

        assertThat(whileQueued).isInstanceOfSatisfying(Submission.Accepted.class,
                a -> assertThat(a.created()).isFalse());
        assertThat(done).isInstanceOf(Resumption.Done.class);
        assertThat(afterwards).isEqualTo(new Submission.Finished<>(new IdempotentResult<>("201 charged 1", true)));
        assertThat(engine.resume(stored, WITH_STATUS, attempt -> "201 charged " + calls.incrementAndGet()))
                .isInstanceOf(Resumption.Done.class);
        assertThat(calls).hasValue(1);
        assertThat(tasks()).isEqualTo(1);
    }

    @Test
    void retryableFailuresBackOffUntilTheLastAttemptEndsTheRecordFinal() {
        MutableClock clock = new MutableClock(Instant.now());
        IdempotencyEngine backingOff = engine(clock, new RetryPolicy(2, Duration.ofSeconds(30),
                Duration.ofMinutes(5)));
        backingOff.submit(scope, request, WITH_STATUS, enqueue);
        IdempotencyScope stored = backingOff.find(scope).orElseThrow().scope();

        Resumption first = backingOff.resume(stored, WITH_STATUS, attempt -> "503 provider down");
        IdempotencyRecord backingOffRecord = backingOff.find(scope).orElseThrow();
        Resumption early = backingOff.resume(stored, WITH_STATUS, attempt -> "201 too early");
        clock.advance(Duration.ofSeconds(30));
        Resumption last = backingOff.resume(stored, WITH_STATUS, attempt -> {
            throw new IllegalStateException("connection reset");
        });

        assertThat(backingOffRecord.state()).isEqualTo(RecordState.FAILED_RETRYABLE);
        assertThat(first).isEqualTo(new Resumption.RetryAt(backingOffRecord.nextAttemptAt()));
        assertThat(early).isEqualTo(first);
        assertThat(last).isInstanceOf(Resumption.Done.class);
        IdempotencyRecord dead = backingOff.find(scope).orElseThrow();
        assertThat(dead.state()).isEqualTo(RecordState.FAILED_FINAL);
        assertThat(dead.response().bodyAsString()).contains("attempts-exhausted");
    }

    @Test
    void workerThatFindsAnotherAttemptHoldingTheLeaseComesBackWhenItRunsOut() {
        engine.submit(scope, request, WITH_STATUS, enqueue);
        IdempotencyScope stored = engine.find(scope).orElseThrow().scope();
        Resumption[] inner = new Resumption[1];

        engine.resume(stored, WITH_STATUS, attempt -> {
            // A revived copy of the task, while this attempt still holds the lease.
            inner[0] = engine(Clock.systemUTC(), RetryPolicy.DEFAULT).resume(stored, WITH_STATUS,
                    other -> "201 charged twice");
            return "201 charged once";
        });

        assertThat(inner[0]).isInstanceOf(Resumption.RetryAt.class);
        assertThat(engine.find(scope).orElseThrow().response().bodyAsString()).isEqualTo("201 charged once");
    }
}
