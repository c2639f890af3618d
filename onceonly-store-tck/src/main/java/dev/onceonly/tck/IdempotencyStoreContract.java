package dev.onceonly.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.StoredResponse;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.Completion;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spi.LeaseToken;
import dev.onceonly.spi.RecordState;
import dev.onceonly.spi.RecordStatistics;
import dev.onceonly.spi.Release;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link IdempotencyStore} passes. Extend it in a store's tests and implement
 * {@link #createStore(Clock)}; the suite runs unchanged against every store.
 *
 * <p>Every test works in a fresh random scope, so the suite runs against shared, always-on databases without
 * truncating tables. Time is driven by a {@link MutableClock} and passed to the store as {@code now}: leases and
 * expiry are tested by moving the clock, never by sleeping. Instants are whole milliseconds, which every
 * database keeps exactly.
 */
public abstract class IdempotencyStoreContract {

    /** Threads racing on one key in the concurrency tests. */
    protected static final int RACERS = 64;
    /** Rounds of each race, each on a fresh key. */
    protected static final int ROUNDS = 20;

    private static final int MAX_PURGE_BATCHES = 10_000;
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration RETENTION = Duration.ofHours(24);

    protected final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
    protected IdempotencyStore store;
    private final String owner = "tck-" + UUID.randomUUID();

    /**
     * Returns the store under test. Called before each test; the clock is the one the suite moves, for stores
     * that need one.
     */
    protected abstract IdempotencyStore createStore(Clock clock);

    @BeforeEach
    void createStoreUnderTest() {
        store = createStore(clock);
    }

    @AfterEach
    void closeStoreUnderTest() throws Exception {
        if (store instanceof AutoCloseable closeable) {
            closeable.close();
        }
    }

    /**
     * {@link IdempotencyStore#insertFinished}, as far as it goes without a transaction: a store that cannot do it
     * says so and refuses the call; one that can refuses a call outside the caller's transaction (a record written
     * there would commit without the work's writes). Both write nothing. What it does inside a transaction is
     * {@code TransactionalModeContract}'s.
     */
    @Nested
    class InsertFinished {

        @Test
        void withoutTheCallersTransactionNothingIsWrittenWhateverTheStoreCan() {
            IdempotencyScope scope = newScope();
            Instant now = now();
            ClaimRequest request = new ClaimRequest(scope, fingerprint("a"), now, now.plus(Duration.ofDays(1)),
                    Duration.ZERO, true);
            Completion finished = new Completion(RecordState.SUCCEEDED, simpleResponse(),
                    now.plus(Duration.ofDays(1)));

            Throwable refusal = catchThrowable(() -> store.insertFinished(request, finished, now));

            if (store.insertsFinished()) {
                assertThat(refusal).isInstanceOf(IdempotencyConfigurationException.class);
            } else {
                assertThat(refusal).isInstanceOf(UnsupportedOperationException.class);
            }
            assertThat(store.find(scope)).isEmpty();
        }
    }

    @Nested
    class Claim {

        @Test
        void firstClaimIsGrantedWithAttemptOne() {
            IdempotencyScope scope = newScope();

            ClaimResult result = store.claim(claimRequest(scope, fingerprint("a")), now());

            assertClaimed(result, 1);
        }

        @Test
        void claimedRecordIsProcessingWithItsLease() {
            IdempotencyScope scope = newScope();

            store.claim(claimRequest(scope, fingerprint("a")), now());

            IdempotencyRecord record = store.find(scope).orElseThrow();
            assertThat(record.scope()).isEqualTo(scope);
            assertThat(record.fingerprint()).isEqualTo(fingerprint("a"));
            assertThat(record.state()).isEqualTo(RecordState.PROCESSING);
            assertThat(record.attempt()).isEqualTo(1);
            assertThat(record.leaseExpiresAt()).isEqualTo(now().plus(LEASE));
            assertThat(record.response()).isNull();
            assertThat(record.createdAt()).isEqualTo(now());
            assertThat(record.expiresAt()).isEqualTo(now().plus(LEASE).plus(RETENTION));
        }

        @Test
        void secondClaimSeesProcessingRecord() {
            IdempotencyScope scope = newScope();
            store.claim(claimRequest(scope, fingerprint("a")), now());

            ClaimResult second = store.claim(claimRequest(scope, fingerprint("a")), now());

            assertThat(second).isInstanceOfSatisfying(ClaimResult.Duplicate.class, duplicate -> {
                assertThat(duplicate.record().state()).isEqualTo(RecordState.PROCESSING);
                assertThat(duplicate.record().attempt()).isEqualTo(1);
            });
        }

        @Test
        void claimWithAnotherFingerprintSeesTheFirstRequestsRecord() {
            IdempotencyScope scope = newScope();
            store.claim(claimRequest(scope, fingerprint("a")), now());

            ClaimResult other = store.claim(claimRequest(scope, fingerprint("b")), now());

            assertThat(other).isInstanceOfSatisfying(ClaimResult.Duplicate.class,
                    duplicate -> assertThat(duplicate.record().fingerprint()).isEqualTo(fingerprint("a")));
        }

        @Test
        void sameKeyUnderAnotherOwnerOrOperationIsIndependent() {
            IdempotencyScope scope = newScope();
            IdempotencyScope otherOwner = new IdempotencyScope(scope.owner() + "-other", scope.operation(),
                    scope.key());
            IdempotencyScope otherOperation = new IdempotencyScope(scope.owner(), "other-operation", scope.key());
            store.claim(claimRequest(scope, fingerprint("a")), now());

            ClaimResult byOtherOwner = store.claim(claimRequest(otherOwner, fingerprint("a")), now());
            ClaimResult byOtherOperation = store.claim(claimRequest(otherOperation, fingerprint("a")), now());

            assertClaimed(byOtherOwner, 1);
            assertClaimed(byOtherOperation, 1);
        }

        @Test
        void claimWithoutLockWaitSeesTheRecordAsStored() {
            IdempotencyScope running = newScope();
            IdempotencyScope finished = newScope();
            claim(running, fingerprint("a"));
            store.complete(finished, claim(finished, fingerprint("a")), succeeded(simpleResponse()), now());

            ClaimResult ofRunning = store.claim(claimRequest(running, fingerprint("a"), now(), Duration.ZERO), now());
            ClaimResult ofFinished = store.claim(claimRequest(finished, fingerprint("a"), now(), Duration.ZERO),
                    now());

            assertThat(ofRunning).isInstanceOfSatisfying(ClaimResult.Duplicate.class,
                    d -> assertThat(d.record().state()).isEqualTo(RecordState.PROCESSING));
            assertThat(ofFinished).isInstanceOfSatisfying(ClaimResult.Duplicate.class,
                    d -> assertThat(d.record().response()).isEqualTo(simpleResponse()));
        }

        @Test
        void unknownScopeIsNotFound() {
            assertThat(store.find(newScope())).isEmpty();
        }
    }

    @Nested
    class Complete {

        @Test
        void completedRecordIsReplayedToDuplicates() {
            IdempotencyScope scope = newScope();
            LeaseToken token = claim(scope, fingerprint("a"));
            StoredResponse response = richResponse();

            boolean completed = store.complete(scope, token, succeeded(response), now());

            assertThat(completed).isTrue();
            ClaimResult duplicate = store.claim(claimRequest(scope, fingerprint("a")), now());
            assertThat(duplicate).isInstanceOfSatisfying(ClaimResult.Duplicate.class, d -> {
                assertThat(d.record().state()).isEqualTo(RecordState.SUCCEEDED);
                assertThat(d.record().response()).isEqualTo(response);
                assertThat(d.record().leaseExpiresAt()).isNull();
                assertThat(d.record().expiresAt()).isEqualTo(now().plus(RETENTION));
            });
        }

        @Test
        void outcomeWithoutAnHttpStatusIsStoredAndReplayedWithoutOne() {
            IdempotencyScope scope = newScope();
            LeaseToken token = claim(scope, fingerprint("a"));
            StoredResponse handled = StoredResponse.result(body("noted"));

            assertThat(store.complete(scope, token, succeeded(handled), now())).isTrue();

            StoredResponse stored = Objects.requireNonNull(store.find(scope).orElseThrow().response());
            assertThat(stored).isEqualTo(handled);
            assertThat(stored.hasStatus()).isFalse();
            assertThat(stored.bodyAsString()).isEqualTo("noted");
        }

        @Test
        void storedResponseKeepsEveryByteHeaderOrderAndEmptyBodies() {
            byte[] allBytes = new byte[256];
            for (int i = 0; i < allBytes.length; i++) {
                allBytes[i] = (byte) i;
            }
            Map<String, List<String>> headers = new LinkedHashMap<>();
            headers.put("Location", List.of("/orders/1"));
            headers.put("Vary", List.of("Accept", "Accept-Language"));
            headers.put("Content-Type", List.of("application/octet-stream"));
            StoredResponse binary = StoredResponse.of(201, headers, allBytes, "order-1");
            StoredResponse empty = StoredResponse.of(204, new byte[0]);
            IdempotencyScope first = newScope();
            IdempotencyScope second = newScope();

            store.complete(first, claim(first, fingerprint("a")), succeeded(binary), now());
            store.complete(second, claim(second, fingerprint("a")), succeeded(empty), now());

            StoredResponse readBinary = Objects.requireNonNull(store.find(first).orElseThrow().response());
            assertThat(readBinary).isEqualTo(binary);
            assertThat(List.copyOf(readBinary.headers().keySet())).containsExactly("Location", "Vary",
                    "Content-Type");
            assertThat(store.find(second).orElseThrow().response()).isEqualTo(empty);
        }

        @Test
        void finalFailureIsStoredAndReplayed() {
            IdempotencyScope scope = newScope();
            LeaseToken token = claim(scope, fingerprint("a"));
            StoredResponse rejection = StoredResponse.of(422, body("{\"error\":\"insufficient stock\"}"));

            boolean completed = store.complete(scope, token,
                    new Completion(RecordState.FAILED_FINAL, rejection, now().plus(RETENTION)), now());

            assertThat(completed).isTrue();
            assertThat(store.claim(claimRequest(scope, fingerprint("a")), now()))
                    .isInstanceOfSatisfying(ClaimResult.Duplicate.class, d -> {
                        assertThat(d.record().state()).isEqualTo(RecordState.FAILED_FINAL);
                        assertThat(d.record().response()).isEqualTo(rejection);
                    });
        }

        @Test
        void completeWithAnotherAttemptIsRefused() {
            IdempotencyScope scope = newScope();
            claim(scope, fingerprint("a"));

            boolean completed = store.complete(scope, new LeaseToken(2, now()), succeeded(simpleResponse()), now());

            assertThat(completed).isFalse();
            assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.PROCESSING);
        }

        @Test
        void secondCompleteIsRefusedAndKeepsTheFirstResponse() {
            IdempotencyScope scope = newScope();
            LeaseToken token = claim(scope, fingerprint("a"));
            StoredResponse first = simpleResponse();
            store.complete(scope, token, succeeded(first), now());

            boolean again = store.complete(scope, token, succeeded(StoredResponse.of(200, body("other"))), now());

            assertThat(again).isFalse();
            assertThat(store.find(scope).orElseThrow().response()).isEqualTo(first);
        }

        @Test
        void completeWithTheSameAttemptOfAnotherRecordIsRefused() {
            IdempotencyScope scope = newScope();
            LeaseToken token = claim(scope, fingerprint("a"));

            boolean completed = store.complete(scope, new LeaseToken(token.attempt(), token.createdAt().minusSeconds(1)),
                    succeeded(simpleResponse()), now());

            assertThat(completed).isFalse();
        }

        @Test
        void completeOfUnknownScopeIsRefused() {
            assertThat(store.complete(newScope(), new LeaseToken(1, now()), succeeded(simpleResponse()), now())).isFalse();
        }

        @Test
        void completeAfterLeaseRanOutButBeforeAnyTakeoverSucceeds() {
            IdempotencyScope scope = newScope();
            LeaseToken token = claim(scope, fingerprint("a"));
            clock.advance(LEASE.multipliedBy(2));

            boolean completed = store.complete(scope, token, succeeded(simpleResponse()), now());

            assertThat(completed).isTrue();
            assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.SUCCEEDED);
        }
    }

    @Nested
    class Fail {

        @Test
        void releasedRecordIsClaimedAgainWithTheNextAttempt() {
            IdempotencyScope scope = newScope();
            LeaseToken first = claim(scope, fingerprint("a"));

            boolean released = store.release(scope, first, retryNow(), now());

            assertThat(released).isTrue();
            assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.FAILED_RETRYABLE);
            assertClaimed(store.claim(claimRequest(scope, fingerprint("a")), now()), 2);
        }

        @Test
        void retryAfterReleaseCanSucceed() {
            IdempotencyScope scope = newScope();
            store.release(scope, claim(scope, fingerprint("a")), retryNow(), now());
            LeaseToken second = claim(scope, fingerprint("a"));

            boolean completed = store.complete(scope, second, succeeded(simpleResponse()), now());

            assertThat(completed).isTrue();
            IdempotencyRecord record = store.find(scope).orElseThrow();
            assertThat(record.state()).isEqualTo(RecordState.SUCCEEDED);
            assertThat(record.attempt()).isEqualTo(2);
        }

        @Test
        void releasedRecordRefusesAnotherFingerprint() {
            IdempotencyScope scope = newScope();
            store.release(scope, claim(scope, fingerprint("a")), retryNow(), now());

            ClaimResult other = store.claim(claimRequest(scope, fingerprint("b")), now());

            assertThat(other).isInstanceOf(ClaimResult.Duplicate.class);
        }

        @Test
        void releaseCountsTheFailureAndHoldsTheRecordUntilItsBackoffPassed() {
            IdempotencyScope scope = newScope();
            Instant nextAttemptAt = now().plusSeconds(10);

            store.release(scope, claim(scope, fingerprint("a")), new Release(nextAttemptAt, nextAttemptAt.plus(
                    RETENTION)), now());

            IdempotencyRecord released = store.find(scope).orElseThrow();
            assertThat(released.failures()).isEqualTo(1);
            assertThat(released.nextAttemptAt()).isEqualTo(nextAttemptAt);
            assertThat(released.leaseExpiresAt()).isNull();
            clock.advance(Duration.ofSeconds(10).minusMillis(1));
            assertThat(store.claim(claimRequest(scope, fingerprint("a")), now()))
                    .isInstanceOfSatisfying(ClaimResult.Duplicate.class,
                            d -> assertThat(d.record().state()).isEqualTo(RecordState.FAILED_RETRYABLE));
            clock.advance(Duration.ofMillis(1));
            assertThat(store.claim(claimRequest(scope, fingerprint("a")), now()))
                    .isInstanceOfSatisfying(ClaimResult.Claimed.class, claimed -> {
                        assertThat(claimed.token().attempt()).isEqualTo(2);
                        assertThat(claimed.failures()).isEqualTo(1);
                    });
            IdempotencyRecord retried = store.find(scope).orElseThrow();
            assertThat(retried.nextAttemptAt()).isNull();
            assertThat(retried.failures()).isEqualTo(1);
        }

        @Test
        void failuresAddUpOverAttemptsAndSurviveTakeoverAndCompletion() {
            IdempotencyScope scope = newScope();
            store.release(scope, claim(scope, fingerprint("a")), retryNow(), now());
            store.release(scope, claim(scope, fingerprint("a")), retryNow(), now());
            claim(scope, fingerprint("a"));
            clock.advance(LEASE);
            ClaimResult takeover = store.claim(claimRequest(scope, fingerprint("a")), now());
            assertThat(takeover).isInstanceOfSatisfying(ClaimResult.Claimed.class,
                    claimed -> assertThat(claimed.failures()).isEqualTo(2));

            store.complete(scope, ((ClaimResult.Claimed) takeover).token(), succeeded(simpleResponse()), now());

            IdempotencyRecord record = store.find(scope).orElseThrow();
            assertThat(record.attempt()).isEqualTo(4);
            assertThat(record.failures()).isEqualTo(2);
        }

        @Test
        void recordCreatedAnewAfterExpiryStartsWithoutFailures() {
            IdempotencyScope scope = newScope();
            store.release(scope, claim(scope, fingerprint("a")), new Release(now(), now().plusSeconds(1)), now());
            clock.advance(Duration.ofSeconds(1));

            ClaimResult fresh = store.claim(claimRequest(scope, fingerprint("b")), now());

            assertThat(fresh).isInstanceOfSatisfying(ClaimResult.Claimed.class,
                    claimed -> assertThat(claimed.failures()).isZero());
            assertThat(store.find(scope).orElseThrow().failures()).isZero();
        }

        @Test
        void releaseWithAnotherAttemptIsRefused() {
            IdempotencyScope scope = newScope();
            claim(scope, fingerprint("a"));

            boolean released = store.release(scope, new LeaseToken(7, now()), retryNow(), now());

            assertThat(released).isFalse();
            assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.PROCESSING);
        }

        @Test
        void releaseAfterCompleteIsRefused() {
            IdempotencyScope scope = newScope();
            LeaseToken token = claim(scope, fingerprint("a"));
            store.complete(scope, token, succeeded(simpleResponse()), now());

            boolean released = store.release(scope, token, retryNow(), now());

            assertThat(released).isFalse();
            assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.SUCCEEDED);
        }
    }

    @Nested
    class Renewal {

        @Test
        void renewalExtendsTheLeaseSoThatNoOneTakesItOver() {
            IdempotencyScope scope = newScope();
            LeaseToken token = claim(scope, fingerprint("a"));
            clock.advance(LEASE.minusSeconds(1));
            Instant renewedUntil = now().plus(LEASE);

            boolean renewed = store.renew(scope, token, renewedUntil, now());
            clock.advance(LEASE.minusSeconds(1));

            assertThat(renewed).isTrue();
            assertThat(store.find(scope).orElseThrow().leaseExpiresAt()).isEqualTo(renewedUntil);
            assertThat(store.claim(claimRequest(scope, fingerprint("a")), now()))
                    .isInstanceOf(ClaimResult.Duplicate.class);
            assertThat(store.complete(scope, token, succeeded(simpleResponse()), now())).isTrue();
        }

        @Test
        void renewalWithAStaleTokenIsRefused() {
            IdempotencyScope scope = newScope();
            LeaseToken token = claim(scope, fingerprint("a"));
            Instant leaseExpiresAt = store.find(scope).orElseThrow().leaseExpiresAt();

            boolean otherAttempt = store.renew(scope, new LeaseToken(7, token.createdAt()), now().plus(LEASE)
                    .plusSeconds(5), now());
            boolean otherRecord = store.renew(scope, new LeaseToken(1, token.createdAt().minusSeconds(1)),
                    now().plus(LEASE).plusSeconds(5), now());

            assertThat(otherAttempt).isFalse();
            assertThat(otherRecord).isFalse();
            assertThat(store.find(scope).orElseThrow().leaseExpiresAt()).isEqualTo(leaseExpiresAt);
        }

        @Test
        void renewalAfterTakeoverIsRefused() {
            IdempotencyScope scope = newScope();
            LeaseToken stale = claim(scope, fingerprint("a"));
            clock.advance(LEASE.plusSeconds(1));
            claim(scope, fingerprint("a"));
            Instant successorsLease = store.find(scope).orElseThrow().leaseExpiresAt();

            boolean renewed = store.renew(scope, stale, now().plus(LEASE).plusSeconds(5), now());

            assertThat(renewed).isFalse();
            IdempotencyRecord record = store.find(scope).orElseThrow();
            assertThat(record.attempt()).isEqualTo(2);
            assertThat(record.leaseExpiresAt()).isEqualTo(successorsLease);
        }

        @Test
        void renewalAfterTheOutcomeIsStoredIsRefused() {
            IdempotencyScope scope = newScope();
            LeaseToken token = claim(scope, fingerprint("a"));
            store.complete(scope, token, succeeded(simpleResponse()), now());

            assertThat(store.renew(scope, token, now().plus(LEASE), now())).isFalse();
            IdempotencyRecord record = store.find(scope).orElseThrow();
            assertThat(record.state()).isEqualTo(RecordState.SUCCEEDED);
            assertThat(record.leaseExpiresAt()).isNull();
        }

        @Test
        void renewalAfterTheLeaseRanOutButBeforeAnyTakeoverSucceeds() {
            IdempotencyScope scope = newScope();
            LeaseToken token = claim(scope, fingerprint("a"));
            clock.advance(LEASE.plusSeconds(5));

            assertThat(store.renew(scope, token, now().plus(LEASE), now())).isTrue();
            assertThat(store.claim(claimRequest(scope, fingerprint("a")), now()))
                    .isInstanceOf(ClaimResult.Duplicate.class);
        }

        @Test
        void renewalPastTheRecordsExpiryKeepsTheRecordUntilTheLeaseEnds() {
            IdempotencyScope scope = newScope();
            LeaseToken token = claim(scope, fingerprint("a"));
            Instant farLease = store.find(scope).orElseThrow().expiresAt().plus(LEASE);

            assertThat(store.renew(scope, token, farLease, now())).isTrue();

            assertThat(store.find(scope).orElseThrow().expiresAt()).isAfterOrEqualTo(farLease);
        }
    }

    @Nested
    class LeaseTakeover {

        @Test
        void liveLeaseIsNotTakenOver() {
            IdempotencyScope scope = newScope();
            claim(scope, fingerprint("a"));
            clock.advance(LEASE.minusMillis(1));

            ClaimResult retry = store.claim(claimRequest(scope, fingerprint("a")), now());

            assertThat(retry).isInstanceOf(ClaimResult.Duplicate.class);
        }

        @Test
        void expiredLeaseIsTakenOver() {
            IdempotencyScope scope = newScope();
            claim(scope, fingerprint("a"));
            clock.advance(LEASE);

            ClaimResult retry = store.claim(claimRequest(scope, fingerprint("a")), now());

            assertClaimed(retry, 2);
            IdempotencyRecord record = store.find(scope).orElseThrow();
            assertThat(record.state()).isEqualTo(RecordState.PROCESSING);
            assertThat(record.leaseExpiresAt()).isEqualTo(now().plus(LEASE));
        }

        @Test
        void completeIsRejectedAfterTakeover() {
            IdempotencyScope scope = newScope();
            LeaseToken stale = claim(scope, fingerprint("a"));
            clock.advance(LEASE.plusSeconds(1));
            LeaseToken fresh = claim(scope, fingerprint("a"));
            StoredResponse freshResponse = StoredResponse.of(201, body("fresh"));

            boolean staleCompleted = store.complete(scope, stale, succeeded(StoredResponse.of(201, body("stale"))),
                    now());
            boolean freshCompleted = store.complete(scope, fresh, succeeded(freshResponse), now());

            assertThat(staleCompleted).isFalse();
            assertThat(freshCompleted).isTrue();
            assertThat(store.find(scope).orElseThrow().response()).isEqualTo(freshResponse);
        }

        @Test
        void releaseIsRejectedAfterTakeover() {
            IdempotencyScope scope = newScope();
            LeaseToken stale = claim(scope, fingerprint("a"));
            clock.advance(LEASE.plusSeconds(1));
            claim(scope, fingerprint("a"));

            boolean released = store.release(scope, stale, retryNow(), now());

            assertThat(released).isFalse();
            IdempotencyRecord record = store.find(scope).orElseThrow();
            assertThat(record.state()).isEqualTo(RecordState.PROCESSING);
            assertThat(record.attempt()).isEqualTo(2);
        }

        @Test
        void claimThatMayNotTakeOverSeesAnExpiredLeaseOrARetryableFailureAsADuplicate() {
            IdempotencyScope leased = newScope();
            claim(leased, fingerprint("a"));
            IdempotencyScope failed = newScope();
            store.release(failed, claim(failed, fingerprint("a")), retryNow(), now());
            clock.advance(LEASE.plusSeconds(1));

            ClaimResult ofLeased = store.claim(submission(leased, fingerprint("a")), now());
            ClaimResult ofFailed = store.claim(submission(failed, fingerprint("a")), now());

            assertThat(ofLeased).isInstanceOfSatisfying(ClaimResult.Duplicate.class,
                    d -> assertThat(d.record().attempt()).isEqualTo(1));
            assertThat(ofFailed).isInstanceOfSatisfying(ClaimResult.Duplicate.class,
                    d -> assertThat(d.record().state()).isEqualTo(RecordState.FAILED_RETRYABLE));
        }

        @Test
        void claimThatMayNotTakeOverStillReplacesAnExpiredRecord() {
            IdempotencyScope scope = newScope();
            store.release(scope, claim(scope, fingerprint("a")), new Release(now(), now().plusSeconds(1)), now());
            clock.advance(Duration.ofSeconds(1));

            assertClaimed(store.claim(submission(scope, fingerprint("a")), now()), 1);
        }

        @Test
        void anotherFingerprintCannotTakeOverAnExpiredLease() {
            IdempotencyScope scope = newScope();
            claim(scope, fingerprint("a"));
            clock.advance(LEASE.plusSeconds(1));

            ClaimResult other = store.claim(claimRequest(scope, fingerprint("b")), now());

            assertThat(other).isInstanceOfSatisfying(ClaimResult.Duplicate.class,
                    d -> assertThat(d.record().attempt()).isEqualTo(1));
        }
    }

    @Nested
    class Expiry {

        @Test
        void completedRecordIsReplayedUntilItExpires() {
            IdempotencyScope scope = newScope();
            store.complete(scope, claim(scope, fingerprint("a")), succeeded(simpleResponse()), now());
            clock.advance(RETENTION.minusMillis(1));

            ClaimResult duplicate = store.claim(claimRequest(scope, fingerprint("a")), now());

            assertThat(duplicate).isInstanceOf(ClaimResult.Duplicate.class);
        }

        @Test
        void expiredRecordCountsAsNewEvenForAnotherRequest() {
            IdempotencyScope scope = newScope();
            store.complete(scope, claim(scope, fingerprint("a")), succeeded(simpleResponse()), now());
            clock.advance(RETENTION);

            ClaimResult fresh = store.claim(claimRequest(scope, fingerprint("b")), now());

            assertThat(fresh).isInstanceOfSatisfying(ClaimResult.Claimed.class,
                    claimed -> assertThat(claimed.token().attempt()).isEqualTo(1));
            IdempotencyRecord record = store.find(scope).orElseThrow();
            assertThat(record.fingerprint()).isEqualTo(fingerprint("b"));
            assertThat(record.state()).isEqualTo(RecordState.PROCESSING);
            assertThat(record.response()).isNull();
            assertThat(record.createdAt()).isEqualTo(now());
        }

        // issue 39: the count went on from the expired record's, and the engine's bound on crashed attempts then
        // answered a brand-new request as exhausted without running it.
        @Test
        void recordCreatedAnewAfterExpiryCountsItsAttemptsFromOne() {
            IdempotencyScope scope = newScope();
            claim(scope, fingerprint("a"));
            clock.advance(LEASE);
            LeaseToken taken = claim(scope, fingerprint("a"));
            store.complete(scope, taken, succeeded(simpleResponse()), now());
            clock.advance(RETENTION);

            LeaseToken fresh = claim(scope, fingerprint("a"));

            assertThat(taken.attempt()).isEqualTo(2);
            assertThat(fresh.attempt()).isEqualTo(1);
            assertThat(store.find(scope).orElseThrow().attempt()).isEqualTo(1);
        }

        @Test
        void attemptOfAnExpiredRecordCannotCompleteTheRecordThatReplacedIt() {
            IdempotencyScope scope = newScope();
            LeaseToken stale = claim(scope, fingerprint("a"));
            clock.advance(RETENTION.plus(LEASE));
            LeaseToken fresh = claim(scope, fingerprint("a"));

            boolean completed = store.complete(scope, stale, succeeded(simpleResponse()), now());

            assertThat(fresh.attempt()).isEqualTo(stale.attempt());
            assertThat(completed).isFalse();
            assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.PROCESSING);
        }
    }

    @Nested
    class Purge {

        @Test
        void purgeDeletesExpiredRecordsInBatchesAndKeepsTheRest() {
            List<IdempotencyScope> expired = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                IdempotencyScope scope = newScope();
                store.complete(scope, claim(scope, fingerprint("a")), succeeded(simpleResponse()), now());
                expired.add(scope);
            }
            clock.advance(RETENTION.plusSeconds(1));
            IdempotencyScope live = newScope();
            store.complete(live, claim(live, fingerprint("a")), succeeded(simpleResponse()), now());
            IdempotencyScope running = newScope();
            claim(running, fingerprint("a"));

            List<Integer> batches = new ArrayList<>();
            int purged;
            do {
                purged = store.purgeExpired(now(), 2);
                batches.add(purged);
            } while (purged > 0 && batches.size() < MAX_PURGE_BATCHES);

            assertThat(batches).allSatisfy(batch -> assertThat(batch).isBetween(0, 2));
            assertThat(batches.stream().mapToInt(Integer::intValue).sum()).isGreaterThanOrEqualTo(expired.size());
            assertThat(expired).allSatisfy(scope -> assertThat(store.find(scope)).isEmpty());
            assertThat(store.find(live)).isPresent();
            assertThat(store.find(running)).isPresent();
        }

        @Test
        void staleAttemptOfAPurgedRecordCannotCompleteItsSuccessor() {
            IdempotencyScope scope = newScope();
            LeaseToken stale = claim(scope, fingerprint("a"));
            clock.advance(LEASE.plus(RETENTION).plusSeconds(1));
            purgeEverythingDue();
            LeaseToken successor = claim(scope, fingerprint("b"));

            boolean staleCompleted = store.complete(scope, stale, succeeded(StoredResponse.of(201, body("stale"))),
                    now());
            boolean staleReleased = store.release(scope, stale, retryNow(), now());

            assertThat(successor.attempt()).isEqualTo(stale.attempt());
            assertThat(staleCompleted).isFalse();
            assertThat(staleReleased).isFalse();
            assertThat(store.complete(scope, successor, succeeded(simpleResponse()), now())).isTrue();
            assertThat(store.find(scope).orElseThrow().response()).isEqualTo(simpleResponse());
        }

        @Test
        void purgedKeyCountsAsNew() {
            IdempotencyScope scope = newScope();
            store.complete(scope, claim(scope, fingerprint("a")), succeeded(simpleResponse()), now());
            clock.advance(RETENTION.plusSeconds(1));
            purgeEverythingDue();

            ClaimResult fresh = store.claim(claimRequest(scope, fingerprint("b")), now());

            assertClaimed(fresh, 1);
        }
    }

    /** What administrators do: evict, list, count. */
    @Nested
    class Administration {

        @Test
        void aStoreKeepsNoAuditUnlessItIsToldTo() {
            assertThat(store.keepsAudit()).isFalse();
        }

        @Test
        void evictedRecordIsGoneAndItsKeyRunsAsNew() {
            IdempotencyScope scope = newScope();
            store.complete(scope, claim(scope, fingerprint("a")), succeeded(simpleResponse()), now());

            assertThat(store.evict(scope, now())).isTrue();

            assertThat(store.find(scope)).isEmpty();
            assertThat(store.evict(scope, now())).isFalse();
            assertClaimed(store.claim(claimRequest(scope, fingerprint("b")), now()), 1);
        }

        @Test
        void runningAttemptOfAnEvictedRecordCannotStoreItsOutcome() {
            IdempotencyScope scope = newScope();
            LeaseToken running = claim(scope, fingerprint("a"));

            store.evict(scope, now());

            assertThat(store.complete(scope, running, succeeded(simpleResponse()), now())).isFalse();
            assertThat(store.renew(scope, running, now().plus(LEASE), now())).isFalse();
            assertThat(store.find(scope)).isEmpty();
        }

        @Test
        void evictionTouchesOnlyItsScope() {
            IdempotencyScope evicted = newScope();
            IdempotencyScope kept = new IdempotencyScope(evicted.owner(), evicted.operation(),
                    IdempotencyKey.of(evicted.key().value() + "-other"));
            claim(evicted, fingerprint("a"));
            claim(kept, fingerprint("a"));

            store.evict(evicted, now());

            assertThat(store.find(kept)).isPresent();
        }

        @Test
        void recentListsAnOwnersOperationNewestFirstUpToTheLimit() {
            String operation = "POST /tck-recent-" + UUID.randomUUID();
            List<IdempotencyScope> scopes = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                IdempotencyScope scope = new IdempotencyScope(owner, operation, IdempotencyKey.of("recent-record-key-" + i));
                claim(scope, fingerprint("a"));
                scopes.add(scope);
                clock.advance(Duration.ofSeconds(1));
            }
            claim(new IdempotencyScope(owner, operation + "-other", IdempotencyKey.of("recent-record-key-9")), fingerprint("a"));
            claim(new IdempotencyScope(owner + "-other", operation, IdempotencyKey.of("recent-record-key-8")), fingerprint("a"));

            List<IdempotencyRecord> recent = store.recent(owner, operation, 3);

            assertThat(recent).extracting(IdempotencyRecord::scope)
                    .containsExactly(scopes.get(3), scopes.get(2), scopes.get(1));
            assertThat(store.recent(owner, operation + "-none", 3)).isEmpty();
        }

        @Test
        void statisticsCountRecordsByStateWithTheOldestProcessingAndThoseDue() {
            // The table is shared with other tests and earlier runs: counted are differences, at a time of this
            // run's own, far from any other run's (whose records would otherwise expire or run out in between).
            clock.advance(Duration.ofDays(3650 + ThreadLocalRandom.current().nextInt(300_000)));
            RecordStatistics before = store.statistics(now());
            Instant oldest = now();
            claim(newScope(), fingerprint("a"));
            clock.advance(Duration.ofSeconds(1));
            IdempotencyScope done = newScope();
            store.complete(done, claim(done, fingerprint("a")), succeeded(simpleResponse()), now());
            IdempotencyScope failed = newScope();
            store.release(failed, claim(failed, fingerprint("a")), retryNow(), now());
            // A queued asynchronous operation: its lease ends as it is created, and no worker has started it.
            store.claim(new ClaimRequest(newScope(), fingerprint("a"), now(), now().plus(LEASE).plus(RETENTION),
                    Duration.ofSeconds(5), false, false), now());
            clock.advance(LEASE.plusSeconds(1)); // the first claim's lease has run out

            RecordStatistics after = store.statistics(now());

            assertThat(count(after, RecordState.PROCESSING) - count(before, RecordState.PROCESSING)).isEqualTo(2);
            assertThat(count(after, RecordState.SUCCEEDED) - count(before, RecordState.SUCCEEDED)).isEqualTo(1);
            assertThat(count(after, RecordState.FAILED_RETRYABLE) - count(before, RecordState.FAILED_RETRYABLE))
                    .isEqualTo(1);
            assertThat(after.total() - before.total()).isEqualTo(4);
            assertThat(after.abandoned() - before.abandoned()).as("the dead attempt, not the queued operation")
                    .isEqualTo(1);
            assertThat(after.oldestProcessingCreatedAt()).isNotNull().isBeforeOrEqualTo(oldest);
            assertThat(after.expired()).isEqualTo(before.expired());
            clock.advance(RETENTION.plus(LEASE));
            assertThat(store.statistics(now()).expired() - after.expired()).isEqualTo(4);
        }
    }

    @Nested
    class Concurrency {

        @Test
        void exactlyOneOfManyConcurrentClaimsWins() throws Exception {
            for (int round = 0; round < ROUNDS; round++) {
                assertThat(losersOfARaceToClaimANewKey(Duration.ofSeconds(5)))
                        .allSatisfy(result -> assertThat(result).isInstanceOf(ClaimResult.Duplicate.class));
            }
        }

        @Test
        void exactlyOneOfManyConcurrentTakeoversWins() throws Exception {
            for (int round = 0; round < ROUNDS; round++) {
                losersOfARaceToTakeOver(Duration.ofSeconds(5));
            }
        }

        @Test
        void exactlyOneOfManyRetriesOfAFailedAttemptWins() throws Exception {
            for (int round = 0; round < ROUNDS; round++) {
                IdempotencyScope scope = newScope();
                store.release(scope, claim(scope, fingerprint("a")), retryNow(), now());
                Instant now = now();

                List<ClaimResult> results = race(RACERS,
                        i -> () -> store.claim(claimRequest(scope, fingerprint("a"), now), now));

                assertThat(results).filteredOn(ClaimResult.Claimed.class::isInstance).singleElement()
                        .satisfies(winner -> assertClaimed(winner, 2));
                assertThat(results).filteredOn(ClaimResult.Duplicate.class::isInstance).hasSize(RACERS - 1);
            }
        }

        /** Claims that may not wait for a lock (leased mode's) learn "in progress", never a store error. */
        // issue 8: lock wait 0 must answer "in progress" on every store, also on pools without auto-commit.
        @Test
        void exactlyOneOfManyConcurrentClaimsWithoutLockWaitWinsAndTheRestAreInProgress() throws Exception {
            for (int round = 0; round < ROUNDS; round++) {
                assertThat(losersOfARaceToClaimANewKey(Duration.ZERO))
                        .allSatisfy(result -> assertInProgress(result, 1));
            }
        }

        @Test
        void exactlyOneOfManyConcurrentTakeoversWithoutLockWaitWins() throws Exception {
            for (int round = 0; round < ROUNDS; round++) {
                assertThat(losersOfARaceToTakeOver(Duration.ZERO))
                        .allSatisfy(result -> assertThat(result).isInstanceOfAny(ClaimResult.Duplicate.class,
                                ClaimResult.Locked.class));
            }
        }

        @Test
        void exactlyOneOfRenewalAndTakeoverWins() throws Exception {
            for (int round = 0; round < ROUNDS * 5; round++) {
                IdempotencyScope scope = newScope();
                LeaseToken first = claim(scope, fingerprint("a"));
                Instant afterLease = now().plus(LEASE).plusSeconds(1);

                List<Object> results = race(2, i -> i == 0
                        ? () -> store.renew(scope, first, afterLease.plus(LEASE), afterLease)
                        : () -> store.claim(claimRequest(scope, fingerprint("a"), afterLease), afterLease));

                boolean renewed = (Boolean) results.get(0);
                ClaimResult takeover = (ClaimResult) results.get(1);
                IdempotencyRecord record = store.find(scope).orElseThrow();
                if (renewed) {
                    assertThat(takeover).isInstanceOf(ClaimResult.Duplicate.class);
                    assertThat(record.attempt()).isEqualTo(1);
                    assertThat(record.leaseExpiresAt()).isEqualTo(afterLease.plus(LEASE));
                } else {
                    assertClaimed(takeover, 2);
                    assertThat(record.attempt()).isEqualTo(2);
                }
            }
        }

        @Test
        void exactlyOneOfCompleteAndTakeoverWins() throws Exception {
            for (int round = 0; round < ROUNDS * 5; round++) {
                IdempotencyScope scope = newScope();
                LeaseToken stale = claim(scope, fingerprint("a"));
                Instant afterLease = now().plus(LEASE).plusSeconds(1);

                List<Object> results = race(2, i -> i == 0
                        ? () -> store.complete(scope, stale, succeeded(simpleResponse()), afterLease)
                        : () -> store.claim(claimRequest(scope, fingerprint("a"), afterLease), afterLease));

                boolean completed = (Boolean) results.get(0);
                ClaimResult takeover = (ClaimResult) results.get(1);
                IdempotencyRecord record = store.find(scope).orElseThrow();
                if (completed) {
                    assertThat(takeover).isInstanceOf(ClaimResult.Duplicate.class);
                    assertThat(record.state()).isEqualTo(RecordState.SUCCEEDED);
                    assertThat(record.attempt()).isEqualTo(1);
                } else {
                    assertClaimed(takeover, 2);
                    assertThat(record.state()).isEqualTo(RecordState.PROCESSING);
                    assertThat(record.attempt()).isEqualTo(2);
                }
            }
        }
    }

    /**
     * Races {@link #RACERS} claims of a fresh key, each waiting at most {@code lockWait} for a lock; asserts that
     * exactly one wins attempt 1 and returns the others' results.
     */
    private List<ClaimResult> losersOfARaceToClaimANewKey(Duration lockWait) throws Exception {
        IdempotencyScope scope = newScope();
        Instant now = now();
        List<ClaimResult> results = race(RACERS,
                i -> () -> store.claim(claimRequest(scope, fingerprint("a"), now, lockWait), now));
        return withOneWinner(results, 1);
    }

    /**
     * Races {@link #RACERS} claims of a record whose lease ran out, each waiting at most {@code lockWait} for a
     * lock; asserts that exactly one wins attempt 2 and returns the others' results.
     */
    private List<ClaimResult> losersOfARaceToTakeOver(Duration lockWait) throws Exception {
        IdempotencyScope scope = newScope();
        claim(scope, fingerprint("a"));
        Instant afterLease = now().plus(LEASE).plusSeconds(1);
        List<ClaimResult> results = race(RACERS,
                i -> () -> store.claim(claimRequest(scope, fingerprint("a"), afterLease, lockWait), afterLease));
        return withOneWinner(results, 2);
    }

    private static List<ClaimResult> withOneWinner(List<ClaimResult> results, int attempt) {
        assertThat(results).filteredOn(ClaimResult.Claimed.class::isInstance).singleElement()
                .satisfies(winner -> assertClaimed(winner, attempt));
        return results.stream().filter(result -> !(result instanceof ClaimResult.Claimed)).toList();
    }

    /** The scope of one test: a random key of this test class's owner. */
    protected IdempotencyScope newScope() {
        return new IdempotencyScope(owner, "create-order", IdempotencyKey.of(UUID.randomUUID().toString()));
    }

    protected Instant now() {
        return clock.instant();
    }

    protected static Fingerprint fingerprint(String request) {
        return Fingerprint.builder().method("POST").route("/orders").rawBody(body(request)).build();
    }

    protected ClaimRequest claimRequest(IdempotencyScope scope, Fingerprint fingerprint) {
        return claimRequest(scope, fingerprint, now());
    }

    protected static ClaimRequest claimRequest(IdempotencyScope scope, Fingerprint fingerprint, Instant now) {
        return claimRequest(scope, fingerprint, now, Duration.ofSeconds(5));
    }

    /** A leased-mode claim that waits at most {@code lockWait} for another transaction's claim of the scope. */
    protected static ClaimRequest claimRequest(IdempotencyScope scope, Fingerprint fingerprint, Instant now,
            Duration lockWait) {
        return new ClaimRequest(scope, fingerprint, now.plus(LEASE), now.plus(LEASE).plus(RETENTION), lockWait,
                false);
    }

    /** A claim that may not take a live record over, as an asynchronous operation's submission makes. */
    protected ClaimRequest submission(IdempotencyScope scope, Fingerprint fingerprint) {
        return new ClaimRequest(scope, fingerprint, now().plus(LEASE), now().plus(LEASE).plus(RETENTION),
                Duration.ofSeconds(5), false, false);
    }

    /**
     * Purges until nothing more is due. Bounded: a store whose deletes do not stick would otherwise keep reporting
     * deleted records forever.
     */
    protected void purgeEverythingDue() {
        for (int batch = 0; batch < MAX_PURGE_BATCHES; batch++) {
            if (store.purgeExpired(now(), 1_000) == 0) {
                return;
            }
        }
        throw new AssertionError("purgeExpired still reports deleted records after " + MAX_PURGE_BATCHES
                + " batches: its deletes do not stick");
    }

    /** Asserts that {@code result} granted the claim with this attempt number. */
    protected static void assertClaimed(ClaimResult result, int attempt) {
        assertThat(result).isInstanceOfSatisfying(ClaimResult.Claimed.class,
                claimed -> assertThat(claimed.token().attempt()).isEqualTo(attempt));
    }

    /**
     * Asserts that {@code result} reports the scope as in progress: the running attempt's record, or
     * {@link ClaimResult.Locked} from a store that met the attempt's uncommitted claim.
     */
    protected static void assertInProgress(ClaimResult result, int attempt) {
        if (result instanceof ClaimResult.Duplicate duplicate) {
            assertThat(duplicate.record().state()).isEqualTo(RecordState.PROCESSING);
            assertThat(duplicate.record().attempt()).isEqualTo(attempt);
        } else {
            assertThat(result).isInstanceOf(ClaimResult.Locked.class);
        }
    }

    /** Claims a scope that must be claimable and returns its token. */
    protected LeaseToken claim(IdempotencyScope scope, Fingerprint fingerprint) {
        ClaimResult result = store.claim(claimRequest(scope, fingerprint), now());
        assertThat(result).isInstanceOf(ClaimResult.Claimed.class);
        return ((ClaimResult.Claimed) result).token();
    }

    /** A release that lets the next attempt run at once. */
    protected Release retryNow() {
        return new Release(now(), now().plus(RETENTION));
    }

    protected Completion succeeded(StoredResponse response) {
        return new Completion(RecordState.SUCCEEDED, response, now().plus(RETENTION));
    }

    protected static StoredResponse simpleResponse() {
        return StoredResponse.of(201, Map.of("Content-Type", List.of("application/json")),
                body("{\"orderId\":1}"), "1");
    }

    private static StoredResponse richResponse() {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        headers.put("Content-Type", List.of("application/json"));
        headers.put("Location", List.of("/api/orders/42"));
        return StoredResponse.of(201, headers, body("{\"orderId\":42,\"note\":\"caf\u00e9 \u2603\"}"), "42");
    }

    protected static byte[] body(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** A task for racer {@code index}. */
    @FunctionalInterface
    protected interface Racer<T> {
        Callable<T> forRacer(int index);
    }

    /**
     * Starts {@code count} tasks on their own threads, releases them at once, and returns their results in
     * racer order. Any task's exception fails the test.
     */
    protected static <T> List<T> race(int count, Racer<? extends T> racer) throws Exception {
        CountDownLatch ready = new CountDownLatch(count);
        CountDownLatch start = new CountDownLatch(1);
        try (ExecutorService threads = Executors.newFixedThreadPool(count)) {
            List<Future<? extends T>> futures = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                Callable<? extends T> task = racer.forRacer(i);
                futures.add(threads.submit(() -> {
                    ready.countDown();
                    start.await();
                    return task.call();
                }));
            }
            ready.await();
            start.countDown();
            List<T> results = new ArrayList<>();
            for (Future<? extends T> future : futures) {
                results.add(future.get());
            }
            return results;
        }
    }

    private static long count(RecordStatistics statistics, RecordState state) {
        return statistics.byState().getOrDefault(state, 0L);
    }
}
