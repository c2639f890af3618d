package dev.onceonly;

import static dev.onceonly.TestRequests.TEXT;
import static dev.onceonly.TestRequests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.CachedOutcome;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spi.OutcomeCache;
import dev.onceonly.spi.RecordState;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What an administrator does to records through the engine: issue 12. */
class RecordAdministrationTest {

    private static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.UTF_8);

    @RegisterExtension
    final CapturedLogs logs = new CapturedLogs();

    private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
    private final SharedCache shared = new SharedCache();
    private final AdjustableClock clock = new AdjustableClock(Instant.parse("2030-01-01T00:00:00Z"));
    private final IdempotencyScope scope = new IdempotencyScope("alice", "create-order",
            IdempotencyKey.of(UUID.randomUUID().toString()));

    private IdempotencyEngine engine(KeyStorage keyStorage) {
        return IdempotencyEngine.builder(store).clock(clock).keyStorage(keyStorage).outcomeCache(shared)
                .replayCache(Duration.ofMinutes(5), 1 << 20).waitTimeout(Duration.ZERO).build();
    }

    private final IdempotencyEngine engine = engine(KeyStorage.raw());

    @Test
    void evictedRecordRunsAgainAndNeitherThisProcessesMemoryNorTheSharedCacheReplaysIt() {
        engine.execute(scope, request("a"), TEXT, attempt -> "first");
        // Replayed once, the outcome is in this process's memory and in the shared cache.
        assertThat(engine.execute(scope, request("a"), TEXT, attempt -> "again").replayed()).isTrue();
        assertThat(shared.outcomes).containsKey(scope);

        RecordAdministration.Eviction eviction = engine.administration().evict(scope, "customer asked to pay again");
        IdempotentResult<String> again = engine.execute(scope, request("b"), TEXT, attempt -> "second");

        assertThat(eviction).isEqualTo(new RecordAdministration.Eviction(true, true));
        assertThat(again).isEqualTo(new IdempotentResult<>("second", false));
    }

    @Test
    void evictionWhoseSharedCacheCannotAnswerSaysSoAndCanBeRepeated() {
        engine.execute(scope, request("a"), TEXT, attempt -> "first");
        shared.down = true;

        RecordAdministration.Eviction first = engine.administration().evict(scope, "refund");
        shared.down = false;
        RecordAdministration.Eviction repeated = engine.administration().evict(scope, "refund, again");

        assertThat(first).isEqualTo(new RecordAdministration.Eviction(true, false));
        assertThat(repeated).isEqualTo(new RecordAdministration.Eviction(false, true));
        assertThat(shared.outcomes).doesNotContainKey(scope);
    }

    @Test
    void evictionIsLoggedWithItsReasonOnOneLine() {
        engine.execute(scope, request("a"), TEXT, attempt -> "first");

        engine.administration().evict(scope, "ticket 42\nINFO forged line");

        assertThat(logs.events()).map(ILoggingEvent::getFormattedMessage)
                .anySatisfy(line -> assertThat(line).startsWith("Evicted idempotency record")
                        .contains("reason=ticket 42 INFO forged line").doesNotContain("\n"));
    }

    @Test
    void stuckAttemptIsReleasedSoThatTheNextRequestRuns() {
        ClaimRequest claim = new ClaimRequest(scope, request("a"), clock.instant().plus(Duration.ofHours(1)),
                clock.instant().plus(Duration.ofDays(1)), Duration.ZERO, false);
        store.claim(claim, clock.instant());
        assertThatThrownBy(() -> engine.execute(scope, request("a"), TEXT, attempt -> "blocked"))
                .isInstanceOf(RequestInProgressException.class);

        RecordAdministration.Released released = engine.administration().release(scope, "worker host lost");
        IdempotentResult<String> retry = engine.execute(scope, request("a"), TEXT, attempt -> "ran");

        assertThat(released).isEqualTo(RecordAdministration.Released.RELEASED);
        assertThat(retry).isEqualTo(new IdempotentResult<>("ran", false));
        assertThat(store.find(scope).orElseThrow().failures()).isEqualTo(1);
    }

    @Test
    void onlyAProcessingRecordIsReleased() {
        engine.execute(scope, request("a"), TEXT, attempt -> "done");
        IdempotencyScope unknown = new IdempotencyScope("alice", "create-order", IdempotencyKey.of(
                UUID.randomUUID().toString()));

        assertThat(engine.administration().release(scope, "x")).isEqualTo(RecordAdministration.Released.NOT_PROCESSING);
        assertThat(engine.administration().release(unknown, "x")).isEqualTo(RecordAdministration.Released.NOT_FOUND);
        assertThat(store.find(scope).orElseThrow().state()).isEqualTo(RecordState.SUCCEEDED);
    }

    @Test
    void withDigestOnlyKeysTheClientsKeyFindsListsAndEvictsTheRecord() {
        IdempotencyEngine digests = engine(KeyStorage.hmacSha256(SECRET));
        digests.execute(scope, request("a"), TEXT, attempt -> "first");

        IdempotencyRecord found = digests.administration().find(scope).orElseThrow();
        List<IdempotencyRecord> recent = digests.administration().recent("alice", "create-order", 10);
        RecordAdministration.Eviction eviction = digests.administration().evict(scope, "gdpr erasure");

        assertThat(found.scope().key().value()).startsWith("hmac-sha256:");
        assertThat(recent).extracting(IdempotencyRecord::scope).containsExactly(found.scope());
        assertThat(eviction.found()).isTrue();
        assertThat(store.find(found.scope())).isEmpty();
        assertThat(logs.events()).map(ILoggingEvent::getFormattedMessage)
                .allSatisfy(line -> assertThat(line).doesNotContain(scope.key().value()));
    }

    @Test
    void listingIsBounded() {
        assertThatThrownBy(() -> engine.administration().recent("alice", "create-order", 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> engine.administration().recent("alice", "create-order",
                RecordAdministration.MAX_LISTED + 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void statisticsCountTheStoresRecordsAtTheEnginesTime() {
        engine.execute(scope, request("a"), TEXT, attempt -> "done");
        clock.advance(Duration.ofDays(2));

        assertThat(engine.administration().statistics().byState()).containsEntry(RecordState.SUCCEEDED, 1L);
        assertThat(engine.administration().statistics().expired()).isEqualTo(1);
    }

    /** A shared cache in memory that can be made unreachable. */
    private static final class SharedCache implements OutcomeCache {
        final Map<IdempotencyScope, CachedOutcome> outcomes = new ConcurrentHashMap<>();
        volatile boolean down;

        @Override
        public Entry enter(IdempotencyScope scope, Fingerprint fingerprint, boolean writesOnce) {
            CachedOutcome outcome = down ? null : outcomes.get(scope);
            return outcome == null ? Unknown.INSTANCE : new Finished(outcome);
        }

        @Override
        public void remember(IdempotencyScope scope, CachedOutcome outcome) {
            if (!down) {
                outcomes.put(scope, outcome);
            }
        }

        @Override
        public void leave(IdempotencyScope scope, Marker marker) {
        }

        @Override
        public boolean forget(IdempotencyScope scope) {
            if (down) {
                return false;
            }
            outcomes.remove(scope);
            return true;
        }
    }
}
