package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spi.RecordState;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Leased mode over time: heartbeats, fencing, attempts running in this process, and failure classes. Two engines
 * on one store stand for two processes; the test moves the clock and the heartbeats itself.
 */
@Timeout(60)
class LeasedAttemptsTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final OutcomeCodec<String> TEXT = OutcomeCodec.of(
            result -> StoredResponse.of(201, result.getBytes(StandardCharsets.UTF_8)), StoredResponse::bodyAsString);
    /** A result whose first three characters are its status, such as {@code 503 provider down}. */
    private static final OutcomeCodec<String> WITH_STATUS = OutcomeCodec.of(
            result -> StoredResponse.of(Integer.parseInt(result.substring(0, 3)),
                    result.getBytes(StandardCharsets.UTF_8)), StoredResponse::bodyAsString);

    private final AdjustableClock clock = new AdjustableClock(Instant.parse("2030-01-01T00:00:00Z"));
    private final ManualScheduler heartbeats = new ManualScheduler();
    private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
    private final IdempotencyScope scope = new IdempotencyScope("alice", "pay-order",
            IdempotencyKey.of(UUID.randomUUID().toString()));
    private final AtomicInteger charges = new AtomicInteger();

    private IdempotencyEngineBuilder engine() {
        return IdempotencyEngine.builder(store).clock(clock).leaseDuration(LEASE).waitTimeout(Duration.ZERO)
                .heartbeatScheduler(heartbeats).renewalExecutor(Runnable::run);
    }

    private final IdempotencyEngine here = engine().build();
    private final IdempotencyEngine elsewhere = engine().build();

    @AfterEach
    void stopScheduler() {
        heartbeats.shutdownNow();
    }

    private static Fingerprint request() {
        return Fingerprint.builder().method("POST").route("/pay").rawBody("{}".getBytes(StandardCharsets.UTF_8))
                .build();
    }

    @Test
    void heartbeatsKeepTheLeaseAcrossWorkThreeTimesLongerThanTheLeaseSoNoOneTakesItOver() {
        List<Throwable> refusals = new ArrayList<>();

        IdempotentResult<String> result = here.execute(scope, request(), TEXT, attempt -> {
            for (int beat = 0; beat < 9; beat++) {
                clock.advance(LEASE.dividedBy(3));
                heartbeats.tick();
                try {
                    elsewhere.execute(scope, request(), TEXT, retry -> "charged by the retry");
                } catch (RequestInProgressException refused) {
                    refusals.add(refused);
                }
            }
            assertThat(attempt.isLeaseLost()).isFalse();
            charges.incrementAndGet();
            return "charged once";
        });

        assertThat(result).isEqualTo(new IdempotentResult<>("charged once", false));
        assertThat(refusals).hasSize(9);
        assertThat(charges).hasValue(1);
        IdempotencyRecord record = store.find(scope).orElseThrow();
        assertThat(record.state()).isEqualTo(RecordState.SUCCEEDED);
        assertThat(record.attempt()).isEqualTo(1);
        assertThat(heartbeats.running()).as("heartbeat stopped with the work").isZero();
    }

    @Test
    void withoutHeartbeatsTheSameWorkIsTakenOver() {
        // The control for the test above: the same timeline with no renewals lets the retry take over.
        IdempotentResult<String> result = here.execute(scope, request(), TEXT, attempt -> {
            clock.advance(LEASE.plusSeconds(1));
            IdempotentResult<String> retry = elsewhere.execute(scope, request(), TEXT, later -> "charged by retry");
            assertThat(retry.replayed()).isFalse();
            return "charged first";
        });

        assertThat(result).isEqualTo(new IdempotentResult<>("charged by retry", true));
    }

    @Test
    void stalledAttemptIsFencedOutAndItsCallerGetsTheAnswerOfTheAttemptThatTookOver() {
        IdempotentResult<String> stalled = here.execute(scope, request(), TEXT, attempt -> {
            // Frozen past its lease (no beat got through), then a retry elsewhere takes over and succeeds.
            clock.advance(LEASE.plusSeconds(1));
            IdempotentResult<String> takeover = elsewhere.execute(scope, request(), TEXT, retry -> {
                assertThat(retry.number()).isEqualTo(2);
                assertThat(retry.downstreamKey("charge")).isEqualTo(attempt.downstreamKey("charge"));
                return "charged by attempt 2";
            });
            assertThat(takeover).isEqualTo(new IdempotentResult<>("charged by attempt 2", false));
            heartbeats.tick();
            assertThat(attempt.isLeaseLost()).isTrue();
            return "charged by attempt 1";
        });

        assertThat(stalled).isEqualTo(new IdempotentResult<>("charged by attempt 2", true));
        assertThat(store.find(scope).orElseThrow().response()).isEqualTo(TEXT.encode("charged by attempt 2"));
    }

    @Test
    void workThatStopsOnALostLeaseStoresNothingAndGetsTheSuccessorsAnswer() {
        IdempotentResult<String> stopped = here.execute(scope, request(), TEXT, attempt -> {
            clock.advance(LEASE.plusSeconds(1));
            elsewhere.execute(scope, request(), TEXT, retry -> "charged by attempt 2");
            heartbeats.tick();
            attempt.ensureLeaseHeld();
            charges.incrementAndGet();
            return "charged by attempt 1";
        });

        assertThat(stopped).isEqualTo(new IdempotentResult<>("charged by attempt 2", true));
        assertThat(charges).hasValue(0);
    }

    @Test
    void attemptThatLostItsLeaseToAStillRunningSuccessorIsAnsweredInProgressAndNeverRunsTwice() {
        AtomicInteger runs = new AtomicInteger();

        assertThatThrownBy(() -> here.execute(scope, request(), TEXT, attempt -> {
            runs.incrementAndGet();
            clock.advance(LEASE.plusSeconds(1));
            // Another process takes the record over and is still at work when this attempt finishes.
            store.claim(new ClaimRequest(scope, request(), clock.instant().plus(LEASE),
                    clock.instant().plus(Duration.ofDays(1)), Duration.ZERO, false), clock.instant());
            return "charged by attempt 1";
        })).isInstanceOf(RequestInProgressException.class);

        assertThat(runs).hasValue(1);
        assertThat(store.find(scope).orElseThrow().attempt()).isEqualTo(2);
    }

    @Test
    void leaseLostExceptionOfAnotherScopeIsThisAttemptsFailureNotItsLostLease() {
        IdempotencyScope other = new IdempotencyScope("alice", "ship-order", scope.key());

        assertThatThrownBy(() -> here.execute(scope, request(), TEXT, attempt -> {
            throw LeaseLostException.of(other, 1);
        })).isInstanceOf(LeaseLostException.class);

        IdempotencyRecord record = store.find(scope).orElseThrow();
        assertThat(record.state()).isEqualTo(RecordState.FAILED_RETRYABLE);
        assertThat(record.failures()).isEqualTo(1);
    }

    @Test
    void recordWhoseAttemptsKeepCrashingEndsFinalWithoutRunningAgain() {
        IdempotencyEngine engine = engine().retryPolicy(new RetryPolicy(1, Duration.ZERO, Duration.ZERO)).build();
        for (int crashed = 0; crashed < 2; crashed++) {
            // An attempt that took the record and died with its process: its lease runs out, nothing is stored.
            store.claim(new ClaimRequest(scope, request(), clock.instant().plus(LEASE),
                    clock.instant().plus(Duration.ofDays(1)), Duration.ZERO, false), clock.instant());
            clock.advance(LEASE.plusSeconds(1));
        }

        IdempotentResult<String> result = engine.execute(scope, request(), TEXT, attempt -> {
            charges.incrementAndGet();
            return "charged";
        });

        assertThat(charges).hasValue(0);
        assertThat(result.value()).contains("attempts-exhausted");
        IdempotencyRecord record = store.find(scope).orElseThrow();
        assertThat(record.state()).isEqualTo(RecordState.FAILED_FINAL);
        assertThat(record.response().status()).isEqualTo(500);
    }

    @Test
    void duplicateInThisProcessIsRefusedAndNeverTakesOverTheLocalAttemptEvenPastItsLease() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (ExecutorService threads = Executors.newSingleThreadExecutor()) {
            Future<IdempotentResult<String>> first = threads.submit(() -> here.execute(scope, request(), TEXT,
                    attempt -> {
                        started.countDown();
                        release.await(30, TimeUnit.SECONDS);
                        charges.incrementAndGet();
                        return "charged once";
                    }));
            started.await(30, TimeUnit.SECONDS);
            // The stored lease has run out (no beat ran), but the attempt still runs here.
            clock.advance(LEASE.multipliedBy(2));

            assertThatThrownBy(() -> here.execute(scope, request(), TEXT, attempt -> {
                charges.incrementAndGet();
                return "charged twice";
            })).isInstanceOf(RequestInProgressException.class);

            release.countDown();
            assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo(new IdempotentResult<>("charged once", false));
        }
        assertThat(charges).hasValue(1);
    }

    @Test
    void retryableFailuresBackOffAndThePolicysLastAttemptEndsTheRecordFinalWithItsProblem() {
        IdempotencyEngine engine = engine().retryPolicy(new RetryPolicy(3, Duration.ofSeconds(10),
                Duration.ofMinutes(1))).build();
        AtomicInteger calls = new AtomicInteger();
        IdempotentWork<String, RuntimeException> failing = attempt -> "503 provider down, call "
                + calls.incrementAndGet();

        assertThat(engine.execute(scope, request(), WITH_STATUS, failing).value()).endsWith("call 1");
        IdempotencyRecord first = store.find(scope).orElseThrow();
        assertThat(first.state()).isEqualTo(RecordState.FAILED_RETRYABLE);
        assertThat(first.failures()).isEqualTo(1);
        assertThat(first.nextAttemptAt()).isEqualTo(clock.instant().plusSeconds(10));
        clock.advance(Duration.ofSeconds(4));
        assertThatThrownBy(() -> engine.execute(scope, request(), WITH_STATUS, failing))
                .as("a retry within the backoff is told when it ends")
                .isInstanceOfSatisfying(RequestInProgressException.class,
                        e -> assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(6)));

        clock.advance(Duration.ofSeconds(6));
        assertThat(engine.execute(scope, request(), WITH_STATUS, failing).value()).endsWith("call 2");
        assertThat(store.find(scope).orElseThrow().nextAttemptAt()).isEqualTo(clock.instant().plusSeconds(20));

        clock.advance(Duration.ofSeconds(20));
        assertThat(engine.execute(scope, request(), WITH_STATUS, failing).value()).endsWith("call 3");
        IdempotencyRecord dead = store.find(scope).orElseThrow();
        assertThat(dead.state()).isEqualTo(RecordState.FAILED_FINAL);
        assertThat(dead.response()).isEqualTo(WITH_STATUS.encode("503 provider down, call 3"));

        clock.advance(Duration.ofHours(1));
        assertThat(engine.execute(scope, request(), WITH_STATUS, failing))
                .isEqualTo(new IdempotentResult<>("503 provider down, call 3", true));
        assertThat(calls).hasValue(3);
    }

    @Test
    void lastAttemptThatThrowsEndsTheRecordWithTheExhaustedProblem() {
        IdempotencyEngine engine = engine().retryPolicy(new RetryPolicy(2, Duration.ZERO, Duration.ZERO)).build();
        IdempotentWork<String, IllegalStateException> throwing = attempt -> {
            throw new IllegalStateException("provider unreachable");
        };

        assertThatThrownBy(() -> engine.execute(scope, request(), TEXT, throwing))
                .isInstanceOf(IllegalStateException.class);
        assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.FAILED_RETRYABLE);
        assertThatThrownBy(() -> engine.execute(scope, request(), TEXT, throwing))
                .isInstanceOf(IllegalStateException.class);

        IdempotencyRecord dead = store.find(scope).orElseThrow();
        assertThat(dead.state()).isEqualTo(RecordState.FAILED_FINAL);
        assertThat(dead.response().status()).isEqualTo(500);
        assertThat(dead.response().bodyAsString()).contains("https://onceonly.dev/problems/attempts-exhausted")
                .doesNotContain("provider unreachable");
    }

    @Test
    void finalDeclineIsReplayedByteForByteAndNeverCountedAsAFailure() {
        IdempotencyEngine engine = engine().retryPolicy(new RetryPolicy(1, Duration.ZERO, Duration.ZERO)).build();
        String decline = "402 {\"type\":\"card-declined\"}";

        engine.execute(scope, request(), WITH_STATUS, attempt -> decline);
        IdempotentResult<String> replay = engine.execute(scope, request(), WITH_STATUS, attempt -> "201 paid");

        assertThat(replay).isEqualTo(new IdempotentResult<>(decline, true));
        IdempotencyRecord record = store.find(scope).orElseThrow();
        assertThat(record.state()).isEqualTo(RecordState.FAILED_FINAL);
        assertThat(record.failures()).isZero();
    }

    @Test
    void downstreamKeysAreStablePerRecordAndStepAndDifferForANewRecordOfTheSameKey() {
        List<String> keys = new ArrayList<>();
        here.execute(scope, request(), TEXT, attempt -> {
            keys.add(attempt.downstreamKey("charge"));
            keys.add(attempt.downstreamKey("ship"));
            return "done";
        });
        clock.advance(Duration.ofDays(2));
        here.execute(scope, request(), TEXT, attempt -> {
            keys.add(attempt.downstreamKey("charge"));
            return "done again";
        });

        assertThat(keys).doesNotHaveDuplicates().allMatch(key -> key.matches("[0-9a-f]{32}"));
    }

    // issue 39: the attempt count went on across expired records, and with max-attempts 1 the third use of a key
    // was answered attempts-exhausted without running.
    @Test
    void keyReusedAfterEachExpiryRunsAsANewRequestEveryTime() {
        IdempotencyEngine engine = engine().retryPolicy(new RetryPolicy(1, Duration.ZERO, Duration.ZERO)).build();
        List<IdempotentResult<String>> results = new ArrayList<>();

        for (int use = 0; use < 4; use++) {
            results.add(engine.execute(scope, request(), TEXT, attempt -> "charge " + charges.incrementAndGet()));
            clock.advance(Duration.ofDays(2));
        }

        assertThat(results).containsExactly(new IdempotentResult<>("charge 1", false),
                new IdempotentResult<>("charge 2", false), new IdempotentResult<>("charge 3", false),
                new IdempotentResult<>("charge 4", false));
        assertThat(store.find(scope).orElseThrow().attempt()).isEqualTo(1);
    }

    // issue 39: a result the codec could not encode left the record PROCESSING, and the work ran again once the lease
    // ran out.
    @Test
    void workWhoseResultCannotBeEncodedEndsItsKeyWithAProblemAndNeverRunsAgain() {
        OutcomeCodec<String> unencodable = OutcomeCodec.of(result -> {
            throw new IllegalStateException("not serialisable");
        }, StoredResponse::bodyAsString);

        assertThatThrownBy(() -> here.execute(scope, request(), unencodable,
                attempt -> "charge " + charges.incrementAndGet())).isInstanceOf(IllegalStateException.class);
        clock.advance(LEASE.multipliedBy(2));
        IdempotentResult<String> retry = elsewhere.execute(scope, request(), TEXT,
                attempt -> "charge " + charges.incrementAndGet());

        assertThat(charges).hasValue(1);
        assertThat(retry.replayed()).isTrue();
        assertThat(retry.value()).contains("https://onceonly.dev/problems/outcome-not-storable");
        assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.FAILED_FINAL);
    }

    // issue 39: a handler that never returned held its key on every instance until a restart, since its heartbeat
    // renewed the lease for as long as the process lived.
    @Test
    void workThatOutlivesTheMaximumAttemptDurationLosesItsLeaseToAnotherInstance() {
        IdempotencyEngine bounded = engine().maxAttemptDuration(LEASE.multipliedBy(2)).build();
        List<IdempotentResult<String>> takeovers = new ArrayList<>();

        IdempotentResult<String> hung = bounded.execute(scope, request(), TEXT, attempt -> {
            for (int beat = 0; beat < 12; beat++) {
                clock.advance(LEASE.dividedBy(3));
                heartbeats.tick();
            }
            takeovers.add(elsewhere.execute(scope, request(), TEXT, retry -> "charged by the takeover"));
            assertThat(attempt.isLeaseLost()).isTrue();
            return "the hung attempt returns at last";
        });

        assertThat(takeovers).containsExactly(new IdempotentResult<>("charged by the takeover", false));
        assertThat(hung).isEqualTo(new IdempotentResult<>("charged by the takeover", true));
    }
}
