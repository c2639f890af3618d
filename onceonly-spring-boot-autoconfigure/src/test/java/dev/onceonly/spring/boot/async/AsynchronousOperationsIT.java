package dev.onceonly.spring.boot.async;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.onceonly.Attempt;
import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotentResult;
import dev.onceonly.OutcomeCodec;
import dev.onceonly.StoredResponse;
import dev.onceonly.Submission;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spi.RecordState;
import dev.onceonly.spring.async.AsynchronousOperation;
import dev.onceonly.spring.async.AsynchronousOperations;
import dev.onceonly.spring.async.OperationOutcomes;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Asynchronous operations end to end on the real PostgreSQL: submitted in a transaction, run by db-scheduler's
 * worker through the engine, retried after retryable failures, answered from the record.
 */
@SpringBootTest(classes = AsynchronousOperationsIT.TestApplication.class, properties = {
    "spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/test?user=postgres",
    "spring.flyway.enabled=false",
    "onceonly.lease.backoff=100ms",
    "onceonly.lease.max-attempts=3",
    "onceonly.async.polling-interval=200ms",
    "onceonly.async.heartbeat-interval=1s",
    "onceonly.async.missed-heartbeats=4"})
@Timeout(60)
class AsynchronousOperationsIT {

    private static final String STORED_BY = "Stored-By";

    @Autowired
    AsynchronousOperations operations;

    @Autowired
    ChargeCard charges;

    @Autowired
    TransactionTemplate transactions;

    @Autowired
    JdbcTemplate jdbc;

    private final IdempotencyScope scope = IdempotencyScope.of("alice-" + UUID.randomUUID(), ChargeCard.NAME,
            IdempotencyKey.of(UUID.randomUUID().toString()));
    private final Fingerprint request = Fingerprint.builder().method("POST").route("/charges").build();

    record Charge(String card, int failuresFirst) {
    }

    /** Charges a card; fails retryably {@code failuresFirst} times per card first. */
    static final class ChargeCard implements AsynchronousOperation<Charge> {
        static final String NAME = "charge-card";
        final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public Class<Charge> payloadType() {
            return Charge.class;
        }

        @Override
        public StoredResponse run(Attempt attempt, Charge charge) {
            int call = calls.computeIfAbsent(charge.card(), card -> new AtomicInteger()).incrementAndGet();
            if (call <= charge.failuresFirst()) {
                return StoredResponse.of(503, ("unavailable " + call).getBytes(StandardCharsets.UTF_8));
            }
            return StoredResponse.of(201, ("charged " + charge.card() + " as " + attempt.downstreamKey("charge"))
                    .getBytes(StandardCharsets.UTF_8));
        }

        int calls(String card) {
            return calls.getOrDefault(card, new AtomicInteger()).get();
        }
    }

    private IdempotencyRecord awaitFinal() {
        return await().atMost(Duration.ofSeconds(30)).until(
                () -> operations.status(scope).filter(record -> record.state().isTerminal()).orElse(null),
                record -> record != null);
    }

    /** A task's instance is named by its stored scope's id, one per scope. */
    private int tasksOf(IdempotencyScope stored) {
        return jdbc.queryForObject("SELECT count(*) FROM onceonly_scheduled_task WHERE task_instance = ?",
                Integer.class, stored.id());
    }

    @Test
    void acceptedOperationIsRunOnceByTheWorkerAndDuplicatesGetItsStoredOutcome() {
        String card = UUID.randomUUID().toString();

        Submission<StoredResponse> first = operations.submit(scope, request, new Charge(card, 0));
        IdempotencyRecord done = awaitFinal();
        Submission<StoredResponse> duplicate = operations.submit(scope, request, new Charge(card, 0));

        assertThat(first).isInstanceOfSatisfying(Submission.Accepted.class, a -> assertThat(a.created()).isTrue());
        assertThat(done.state()).isEqualTo(RecordState.SUCCEEDED);
        assertThat(duplicate).isEqualTo(new Submission.Finished<>(new IdempotentResult<>(done.response(), true)));
        assertThat(charges.calls(card)).isEqualTo(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> tasksOf(done.scope()) == 0);
    }

    // What the worker stores is replayed by asynchronous HTTP endpoints, so it follows their storage rules.
    @Test
    void workerStoresTheOutcomeThroughTheApplicationsOperationOutcomes() {
        operations.submit(scope, request, new Charge(UUID.randomUUID().toString(), 0));

        assertThat(awaitFinal().response().headers()).containsEntry(STORED_BY, List.of(ChargeCard.NAME));
    }

    @Test
    void retryableFailuresAreRetriedByTheWorkerAfterTheirBackoff() {
        String card = UUID.randomUUID().toString();

        operations.submit(scope, request, new Charge(card, 2));
        IdempotencyRecord done = awaitFinal();

        assertThat(done.state()).isEqualTo(RecordState.SUCCEEDED);
        assertThat(done.failures()).isEqualTo(2);
        assertThat(charges.calls(card)).isEqualTo(3);
    }

    @Test
    void failuresPastTheMaximumEndTheOperationWithItsLastProblem() {
        String card = UUID.randomUUID().toString();

        operations.submit(scope, request, new Charge(card, 10));
        IdempotencyRecord done = awaitFinal();

        assertThat(done.state()).isEqualTo(RecordState.FAILED_FINAL);
        assertThat(done.response().bodyAsString()).isEqualTo("unavailable 3");
        assertThat(charges.calls(card)).isEqualTo(3);
        await().atMost(Duration.ofSeconds(10)).until(() -> tasksOf(done.scope()) == 0);
    }

    /** The submission commits on its own (the record and task are its whole effect), never inside another. */
    @Test
    void submissionInsideTheCallersTransactionIsRefusedAndStoresNothing() {
        String card = UUID.randomUUID().toString();

        assertThatThrownBy(() -> transactions.executeWithoutResult(status -> operations.submit(scope, request,
                new Charge(card, 0)))).isInstanceOf(IdempotencyConfigurationException.class)
                .hasMessageContaining("already active");

        assertThat(operations.status(scope)).isEmpty();
        assertThat(tasksOf(scope)).isZero();
        assertThat(charges.calls(card)).isZero();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class TestApplication {
        @Bean
        ChargeCard chargeCard() {
            return new ChargeCard();
        }

        /** Marks what it stores, so that a test sees the worker store through it. */
        @Bean
        OperationOutcomes markingOutcomes() {
            return operation -> new OutcomeCodec<>() {
                @Override
                public StoredResponse encode(StoredResponse response) {
                    return StoredResponse.of(response.status(), Map.of(STORED_BY, List.of(operation)),
                            response.body(), response.resourceId());
                }

                @Override
                public StoredResponse decode(StoredResponse stored) {
                    return stored;
                }
            };
        }
    }
}
