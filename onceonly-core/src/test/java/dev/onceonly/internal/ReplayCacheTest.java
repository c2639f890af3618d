package dev.onceonly.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.AdjustableClock;
import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.StoredResponse;
import dev.onceonly.spi.CachedOutcome;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class ReplayCacheTest {

    private static final Instant START = Instant.parse("2030-01-01T00:00:00Z");
    private static final Duration TIME_TO_LIVE = Duration.ofSeconds(5);
    /** What the cache counts for an entry besides its body. */
    private static final long ENTRY_ALLOWANCE = 512;
    private static final Fingerprint REQUEST = Fingerprint.builder().method("POST").route("/orders").build();

    private final AdjustableClock clock = new AdjustableClock(START);
    private final Instant recordExpiry = START.plus(Duration.ofHours(24));

    private static IdempotencyScope scope(int n) {
        return IdempotencyScope.of("alice", "create-order", IdempotencyKey.of("key-" + n + "-0123456789abcdef"));
    }

    private static StoredResponse body(int length) {
        return StoredResponse.of(201, new byte[length]);
    }

    @Test
    void byteBudgetHoldsUnderConcurrentPuts() throws Exception {
        long budget = 64 * 1024;
        ReplayCache cache = new ReplayCache(clock, TIME_TO_LIVE, budget);
        int threads = 8;
        int putsPerThread = 5_000;
        int scopes = 3_000;
        CountDownLatch start = new CountDownLatch(1);
        AtomicBoolean writing = new AtomicBoolean(true);
        ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
        try {
            Future<Long> largestSeen = pool.submit(() -> {
                long largest = 0;
                while (writing.get()) {
                    largest = Math.max(largest, cache.bytes());
                }
                return largest;
            });
            List<Future<?>> writers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                writers.add(pool.submit(() -> {
                    start.await();
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < putsPerThread; i++) {
                        // Bodies of up to a quarter of the budget, on scopes the threads share.
                        cache.put(scope(random.nextInt(scopes)), REQUEST,
                                body(random.nextInt((int) (budget / 4 - ENTRY_ALLOWANCE))), recordExpiry);
                        // Seen by the putting thread itself, right after its own put made its entry visible.
                        assertThat(cache.bytes()).isLessThanOrEqualTo(budget);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> writer : writers) {
                writer.get(30, TimeUnit.SECONDS);
            }
            writing.set(false);

            assertThat(largestSeen.get(30, TimeUnit.SECONDS)).isLessThanOrEqualTo(budget);
            long held = 0;
            for (int n = 0; n < scopes; n++) {
                CachedOutcome entry = cache.get(scope(n));
                held += entry == null ? 0 : entry.response().bodyLength() + ENTRY_ALLOWANCE;
            }
            assertThat(cache.bytes()).isEqualTo(held).isLessThanOrEqualTo(budget).isPositive();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void expiredEntriesAreSweptByALaterPutWithoutBeingRead() {
        ReplayCache cache = new ReplayCache(clock, TIME_TO_LIVE, 1 << 20);
        for (int n = 0; n < 100; n++) {
            cache.put(scope(n), REQUEST, body(100), recordExpiry);
        }
        assertThat(cache.bytes()).isEqualTo(100 * (100 + ENTRY_ALLOWANCE));

        clock.advance(TIME_TO_LIVE);
        cache.put(scope(1_000), REQUEST, body(10), recordExpiry);

        assertThat(cache.bytes()).isEqualTo(10 + ENTRY_ALLOWANCE);
        assertThat(cache.get(scope(1_000))).isNotNull();
    }

    @Test
    void entryWhoseRecordExpiresFirstIsSweptOnceItsRecordExpired() {
        ReplayCache cache = new ReplayCache(clock, TIME_TO_LIVE, 1 << 20);
        cache.put(scope(1), REQUEST, body(100), START.plusSeconds(1));

        clock.advance(Duration.ofSeconds(1));
        cache.put(scope(2), REQUEST, body(10), recordExpiry);

        assertThat(cache.bytes()).isEqualTo(10 + ENTRY_ALLOWANCE);
    }

    @Test
    void fullCacheEvictsItsOldestEntriesFirst() {
        long entry = 100 + ENTRY_ALLOWANCE;
        ReplayCache cache = new ReplayCache(clock, TIME_TO_LIVE, 4 * entry);
        for (int n = 1; n <= 4; n++) {
            cache.put(scope(n), REQUEST, body(100), recordExpiry);
        }

        cache.put(scope(5), REQUEST, body(100), recordExpiry);

        assertThat(cache.get(scope(1))).isNull();
        for (int n = 2; n <= 5; n++) {
            assertThat(cache.get(scope(n))).as("entry %d", n).isNotNull();
        }
        assertThat(cache.bytes()).isEqualTo(4 * entry);
    }

    @Test
    void aSecondPutOfOneScopeReplacesItsEntryAndItsBytes() {
        ReplayCache cache = new ReplayCache(clock, TIME_TO_LIVE, 1 << 20);
        cache.put(scope(1), REQUEST, body(100), recordExpiry);

        cache.put(scope(1), REQUEST, body(10), recordExpiry);

        assertThat(cache.bytes()).isEqualTo(10 + ENTRY_ALLOWANCE);
        assertThat(cache.get(scope(1)).response().bodyLength()).isEqualTo(10);
    }
}
