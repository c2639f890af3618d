package dev.onceonly;

import static dev.onceonly.TestRequests.TEXT;
import static dev.onceonly.TestRequests.request;
import static dev.onceonly.TestRequests.withStatus;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.CachedOutcome;
import dev.onceonly.spi.ClaimRequest;
import dev.onceonly.spi.ClaimResult;
import dev.onceonly.spi.ForwardingIdempotencyStore;
import dev.onceonly.spi.IdempotencyRecord;
import dev.onceonly.spi.OutcomeCache;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How the engine uses a shared {@link OutcomeCache}, with a cache kept in a map standing in for another instance's
 * view of Redis: what it answers spares the store, what it cannot answer goes to the store, and markers are
 * left whatever the attempt's end. Redis itself is tested in {@code onceonly-redis}.
 */
@Timeout(30)
class SharedOutcomeCacheTest {

    private final InMemoryIdempotencyStore memory = new InMemoryIdempotencyStore();
    private final AtomicInteger storeCalls = new AtomicInteger();
    private final CountingStore store = new CountingStore();
    private final MapCache shared = new MapCache();
    private final IdempotencyScope scope = new IdempotencyScope("alice", "create-order",
            IdempotencyKey.of(UUID.randomUUID().toString()));
    private final AtomicInteger executions = new AtomicInteger();

    /** An instance of the service: its own memory and in-flight attempts, the shared store and cache. */
    private IdempotencyEngine instance() {
        return IdempotencyEngine.builder(store).outcomeCache(shared).waitTimeout(Duration.ofMillis(200)).build();
    }

    @Test
    void aFirstExecutionTellsTheSharedCacheNothingMoreThanItsMarker() {
        instance().execute(scope, request("a"), TEXT, attempt -> order("created"));

        assertThat(shared.enters).hasValue(1);
        assertThat(shared.remembered).as("no second round trip: the outcome waits for its first replay").hasValue(0);
        assertThat(shared.leaves).hasValue(0);
        assertThat(shared.markers).containsKey(scope);
    }

    @Test
    void anOutcomeReplayedOnceFromTheStoreIsReplayedOnEveryInstanceWithoutIt() {
        instance().execute(scope, request("a"), TEXT, attempt -> order("created"));
        storeCalls.set(0);

        IdempotentResult<String> first = instance().execute(scope, request("a"), TEXT, attempt -> order("again"));

        assertThat(first).isEqualTo(new IdempotentResult<>("created", true));
        assertThat(storeCalls).as("the marker sent the duplicate to the store's record, at once").hasValue(1);
        assertThat(shared.outcomes).containsKey(scope);
        assertThat(shared.markers).as("remembering the outcome ended the marker").isEmpty();
        storeCalls.set(0);

        IdempotentResult<String> second = instance().execute(scope, request("a"), TEXT, attempt -> order("again"));

        assertThat(second).isEqualTo(new IdempotentResult<>("created", true));
        assertThat(executions).hasValue(1);
        assertThat(storeCalls).hasValue(0);
        assertThat(shared.leaves).hasValue(0);
    }

    @Test
    void aReusedKeyIsRefusedFromTheSharedCacheWithoutTheStore() {
        instance().execute(scope, request("a"), TEXT, attempt -> order("created"));
        storeCalls.set(0);

        assertThatThrownBy(() -> instance().execute(scope, request("b"), TEXT, attempt -> order("other")))
                .isInstanceOf(IdempotencyKeyReusedException.class);
        assertThat(storeCalls).hasValue(0);
    }

    @Test
    void aDuplicateOfAnAttemptRunningOnAnotherInstanceWaitsAndIsRefusedOnlyOnceTheStoreConfirmsIt() {
        // The other instance's attempt: its marker in the cache, its leased claim in the store.
        shared.markers.put(scope, new Held("elsewhere", request("a")));
        Instant now = Instant.now();
        memory.claim(new ClaimRequest(scope, request("a"), now.plusSeconds(30), now.plusSeconds(3600), Duration.ZERO,
                false), now);

        assertThatThrownBy(() -> instance().execute(scope, request("a"), TEXT, attempt -> order("dup")))
                .isInstanceOf(RequestInProgressException.class);
        assertThat(storeCalls).as("a read of the record at each poll, one claim once the wait was over")
                .hasValueGreaterThan(1);
        int calls = storeCalls.get();
        assertThatThrownBy(() -> instance().execute(scope, request("b"), TEXT, attempt -> order("other")))
                .isInstanceOf(IdempotencyKeyReusedException.class);
        assertThat(executions).hasValue(0);
        assertThat(storeCalls).as("a reused key is refused from the marker alone").hasValue(calls);
    }

    @Test
    void aMarkerThatOutlivedItsAttemptNeverRefusesADuplicate() {
        // A finished attempt's marker stays until the first replay; another's process died before its commit.
        IdempotencyEngine.builder(store).build().execute(scope, request("a"), TEXT, attempt -> order("created"));
        shared.markers.put(scope, new Held("ended long ago", request("a")));
        IdempotencyScope crashed = new IdempotencyScope("alice", "create-order",
                IdempotencyKey.of(UUID.randomUUID().toString()));
        shared.markers.put(crashed, new Held("died before its commit", request("a")));

        assertThat(instance().execute(scope, request("a"), TEXT, attempt -> order("again")))
                .isEqualTo(new IdempotentResult<>("created", true));
        assertThat(instance().execute(crashed, request("a"), TEXT, attempt -> order("ran")))
                .isEqualTo(new IdempotentResult<>("ran", false));
        assertThat(executions).hasValue(2);
    }

    /**
     * A marker lasts as long as an outcome would where its attempt wrote its record once (issue 42), long after the
     * attempt could still be running: past that, the next attempt takes it over, so that duplicates wait for that
     * one, and claims first, since the store may hold the old attempt's record; the marker's fingerprint is no longer
     * the key's.
     */
    @Test
    void aMarkerPastTheTimeItsAttemptMayRunIsTakenOverAndTheStoreDecides() {
        IdempotencyScope used = new IdempotencyScope("alice", "create-order",
                IdempotencyKey.of(UUID.randomUUID().toString()));
        IdempotencyEngine.builder(store).build().execute(used, request("a"), TEXT, attempt -> order("created"));
        shared.markers.put(used, new Held("finished long ago", request("a"), false));
        shared.markers.put(scope, new Held("died long ago", request("a"), false));
        storeCalls.set(0);

        assertThatThrownBy(() -> instance().execute(used, request("b"), TEXT, attempt -> order("other")))
                .as("refused by the record, not the marker").isInstanceOf(IdempotencyKeyReusedException.class);
        assertThat(storeCalls).hasPositiveValue();
        assertThat(instance().execute(scope, request("b"), TEXT, attempt -> {
            assertThat(shared.markers.get(scope)).as("this attempt's own marker, which duplicates wait for")
                    .isEqualTo(new Held(shared.markers.get(scope).token(), request("b")));
            return order("ran");
        })).as("another request, where the old marker's attempt never stored an outcome")
                .isEqualTo(new IdempotentResult<>("ran", false));
        assertThat(executions).hasValue(2);
    }

    @Test
    void aDuplicateThatWaitedForAnotherInstanceReplaysItsOutcome() {
        shared.markers.put(scope, new Held("elsewhere", request("a")));
        shared.afterEnters(3, () -> {
            shared.markers.clear();
            shared.remember(scope, new CachedOutcome(Fingerprint.ofDigest(request("a").digest()),
                    TEXT.encode("from elsewhere"), Instant.now().plusSeconds(60)));
        });

        IdempotentResult<String> result = instance().execute(scope, request("a"), TEXT, attempt -> order("dup"));

        assertThat(result).isEqualTo(new IdempotentResult<>("from elsewhere", true));
        assertThat(executions).hasValue(0);
        assertThat(storeCalls).as("a read of the record at each poll while the marker stayed").hasValue(2);
    }

    @Test
    void theMarkerIsLeftWhenTheWorkFailsSoThatARetryRunsAtOnce() {
        IdempotencyEngine instance = instance();
        assertThatThrownBy(() -> instance.execute(scope, request("a"), TEXT, attempt -> {
            assertThat(shared.markers).containsKey(scope);
            throw new IllegalStateException("payment declined by a bug");
        })).isInstanceOf(IllegalStateException.class);

        assertThat(shared.markers).isEmpty();
        assertThat(instance().execute(scope, request("a"), TEXT, attempt -> order("second")).value())
                .isEqualTo("second");
    }

    @Test
    void anUnansweringCacheSendsEveryCallToTheStoreWhichDecides() {
        shared.down = true;
        IdempotencyEngine first = instance();
        first.execute(scope, request("a"), TEXT, attempt -> order("created"));

        IdempotentResult<String> replay = instance().execute(scope, request("a"), TEXT, attempt -> order("again"));

        assertThat(replay).isEqualTo(new IdempotentResult<>("created", true));
        assertThat(executions).hasValue(1);
        assertThat(storeCalls.get()).isPositive();
    }

    @Test
    void anOutcomeAnotherInstanceEncryptedIsNotReplayedAsItsCiphertextButAnsweredByTheStore() {
        StoredResponse sealed = StoredResponse.of(201, Map.of(StoredResponse.SEALED_HEADER,
                List.of("1")), "ciphertext".getBytes(StandardCharsets.UTF_8), null);
        shared.outcomes.put(scope, new CachedOutcome(Fingerprint.ofDigest(request("a").digest()), sealed,
                Instant.now().plusSeconds(60)));

        IdempotentResult<String> result = instance().execute(scope, request("a"), TEXT, attempt -> order("fresh"));

        assertThat(result).isEqualTo(new IdempotentResult<>("fresh", false));
        assertThat(storeCalls.get()).isPositive();
    }

    @Test
    void aRetryableOutcomeIsNotRemembered() {
        instance().execute(scope, request("a"), withStatus(503), attempt -> order("busy"));

        assertThat(shared.outcomes).isEmpty();
        assertThat(shared.markers).isEmpty();
    }

    private String order(String result) {
        executions.incrementAndGet();
        return result;
    }


    /** @param recent whether its attempt started so recently that it may still be running */
    private record Held(String token, Fingerprint fingerprint, boolean recent) {

        Held(String token, Fingerprint fingerprint) {
            this(token, fingerprint, true);
        }
    }

    /** A shared cache in a map, with markers, that can stop answering. */
    private static final class MapCache implements OutcomeCache {
        final Map<IdempotencyScope, CachedOutcome> outcomes = new ConcurrentHashMap<>();
        final Map<IdempotencyScope, Held> markers = new ConcurrentHashMap<>();
        volatile boolean down;
        final AtomicInteger leaves = new AtomicInteger();
        final AtomicInteger remembered = new AtomicInteger();
        final AtomicInteger enters = new AtomicInteger();
        private volatile int changeAfter = -1;
        private volatile @Nullable Runnable change;

        void afterEnters(int count, Runnable change) {
            this.changeAfter = count;
            this.change = change;
        }

        @Override
        public Entry enter(IdempotencyScope scope, Fingerprint fingerprint, boolean writesOnce) {
            Runnable pending = change;
            int entered = enters.incrementAndGet();
            if (pending != null && entered == changeAfter) {
                pending.run();
            }
            if (down) {
                return Unknown.INSTANCE;
            }
            CachedOutcome outcome = outcomes.get(scope);
            if (outcome != null) {
                return new Finished(outcome);
            }
            Held mine = new Held(UUID.randomUUID().toString(), fingerprint);
            Held held = markers.putIfAbsent(scope, mine);
            if (held == null) {
                return new Entered(new Marker(mine.token()), true);
            }
            if (!held.recent() && markers.replace(scope, held, mine)) {
                return new Entered(new Marker(mine.token()), false);
            }
            return new Running(held.fingerprint());
        }

        @Override
        public void remember(IdempotencyScope scope, CachedOutcome outcome) {
            remembered.incrementAndGet();
            if (!down) {
                outcomes.put(scope, outcome);
                markers.remove(scope);
            }
        }

        @Override
        public void leave(IdempotencyScope scope, Marker marker) {
            leaves.incrementAndGet();
            markers.computeIfPresent(scope, (s, held) -> held.token().equals(marker.token()) ? null : held);
        }

        @Override
        public boolean forget(IdempotencyScope scope) {
            if (down) {
                return false;
            }
            markers.remove(scope);
            outcomes.remove(scope);
            return true;
        }
    }

    /** Counts the calls that reach the store. */
    private final class CountingStore extends ForwardingIdempotencyStore {
        CountingStore() {
            super(memory);
        }

        @Override
        public ClaimResult claim(ClaimRequest request, Instant now) {
            storeCalls.incrementAndGet();
            return super.claim(request, now);
        }

        @Override
        public Optional<IdempotencyRecord> find(IdempotencyScope scope) {
            storeCalls.incrementAndGet();
            return super.find(scope);
        }
    }
}
