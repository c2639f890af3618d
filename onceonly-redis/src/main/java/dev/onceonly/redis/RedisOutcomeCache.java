package dev.onceonly.redis;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.spi.CachedOutcome;
import dev.onceonly.spi.OutcomeCache;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.data.redis.serializer.RedisSerializer;

/**
 * The outcome cache that a service's instances share in Redis: finished outcomes, so that a hot replay on any
 * instance is answered with no database statement, and markers of attempts that started ({@code SET NX PX}, left
 * by compare-and-delete when an attempt ends without an outcome), so that a duplicate of an attempt on another
 * instance waits for it instead of running. One script, one round trip, per question: a first execution asks one,
 * and tells Redis nothing after its commit (the outcome comes with its first replay from the store).
 *
 * <p>Redis is an accelerator here, never the judge: the store decides every race Redis missed. Any Redis error or
 * timeout counts against a circuit breaker and the call is answered {@link OutcomeCache.Unknown} (the engine then
 * asks the store); once the breaker is open, Redis is not asked at all until it has been open for a while, after
 * which a few calls probe it. Give the connection factory a short command timeout and have it reject commands
 * while disconnected (the starter does): each request then pays at most that timeout while Redis is dying.
 *
 * <p>Keys: {@code <prefix>:{<scope id>}:o} for the outcome and {@code …:m} for the marker, where the scope id is
 * {@link IdempotencyScope#id()} (a digest: no owner, operation or key in clear). The braces are a Redis Cluster hash
 * tag: both keys of a scope live in one slot, as each script needs. Outcomes are kept until the earlier of their
 * record's expiry and {@code maxTimeToLive}; bodies over {@code maxBodyBytes} are not kept. Values hold the
 * response as stored, so a service that encrypts its stored responses gives this cache an encrypting wrapper.
 * Thread-safe.
 */
public final class RedisOutcomeCache implements OutcomeCache {

    private static final Logger log = LoggerFactory.getLogger(RedisOutcomeCache.class);
    private static final int TOKEN_LENGTH = 32;

    /**
     * The outcome ({@code F}, value), else a fresh marker ({@code E}), else the marker held ({@code R}, value) while
     * its attempt may still run, else that marker taken over ({@code T}): its life (after the fingerprint and token,
     * ARGV[4] bytes) less what it has left is how long ago it was set, by Redis's own clock, and from ARGV[3]
     * milliseconds on its attempt ended or died.
     */
    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> ENTER = RedisScript.of("""
            local outcome = redis.call('GET', KEYS[1])
            if outcome then
              return {'F', outcome}
            end
            if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then
              return {'E'}
            end
            local held = redis.call('GET', KEYS[2])
            if not held then
              return {'U'}
            end
            local life = tonumber(string.sub(held, ARGV[4] + 1))
            if life and life - redis.call('PTTL', KEYS[2]) >= tonumber(ARGV[3]) then
              redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
              return {'T'}
            end
            return {'R', held}""", List.class);
    /** Keeps the outcome and drops any marker: nothing runs once there is an outcome. */
    private static final RedisScript<Long> REMEMBER = RedisScript.of("""
            redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
            return redis.call('DEL', KEYS[2])""", Long.class);
    /** Drops the marker if it is still this attempt's: its token follows the fingerprint's ARGV[2] bytes. */
    private static final RedisScript<Long> LEAVE = RedisScript.of("""
            local held = redis.call('GET', KEYS[1])
            if held and string.sub(held, ARGV[2] + 1, ARGV[2] + #ARGV[1]) == ARGV[1] then
              return redis.call('DEL', KEYS[1])
            end
            return 0""", Long.class);

    private final RedisTemplate<String, byte[]> redis;
    private final String prefix;
    private final Duration markerTtl;
    private final Duration maxTimeToLive;
    private final int maxBodyBytes;
    private final Clock clock;
    private final CircuitBreaker breaker;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder running = new LongAdder();
    private final LongAdder failures = new LongAdder();
    private final LongAdder skipped = new LongAdder();
    /** Whether Redis has answered a call of this cache yet: its connection exists from then on. */
    private volatile boolean answered;
    /** Held by the one call that may try Redis before it has ever answered. */
    private final Semaphore connecting = new Semaphore(1);

    private RedisOutcomeCache(Builder builder) {
        this.redis = new RedisTemplate<>();
        redis.setConnectionFactory(builder.connectionFactory);
        redis.setKeySerializer(RedisSerializer.string());
        redis.setValueSerializer(RedisSerializer.byteArray());
        // Every request calls Redis: no proxy around the connection for each call (the scripts close nothing).
        redis.setExposeConnection(true);
        redis.afterPropertiesSet();
        this.prefix = builder.prefix;
        this.markerTtl = builder.markerTtl;
        this.maxTimeToLive = builder.maxTimeToLive;
        this.maxBodyBytes = builder.maxBodyBytes;
        this.clock = builder.clock;
        this.breaker = CircuitBreaker.of("onceonly-redis", CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(10)
                .minimumNumberOfCalls(3)
                .failureRateThreshold(50)
                .waitDurationInOpenState(builder.openFor)
                .permittedNumberOfCallsInHalfOpenState(2)
                .build());
        breaker.getEventPublisher().onStateTransition(event -> log.warn("Redis outcome cache: {}; {}",
                event.getStateTransition(), breaker.getState() == CircuitBreaker.State.CLOSED
                        ? "Redis answers again" : "requests go to the store without asking Redis"));
    }

    /**
     * @param connectionFactory a factory whose commands time out soon and fail while disconnected; the cache uses
     *     it through a template of its own
     */
    public static Builder builder(RedisConnectionFactory connectionFactory) {
        return new Builder(connectionFactory);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The marker holds the request's fingerprint, the attempt's token and how long it was set to last, so that the
     * script can tell from what it has left (Redis's own clock) how long ago its attempt started, and take over one
     * older than the marker time to live.
     */
    @Override
    public Entry enter(IdempotencyScope scope, Fingerprint fingerprint, boolean writesOnce) {
        String id = scope.id();
        String token = token();
        long life = writesOnce ? Math.max(markerTtl.toMillis(), maxTimeToLive.toMillis()) : markerTtl.toMillis();
        byte[] marker = markerValue(fingerprint, token, life);
        @SuppressWarnings("unchecked")
        List<byte[]> reply = call(() -> redis.execute(ENTER, List.of(outcomeKey(id), markerKey(id)), marker,
                decimal(life), decimal(markerTtl.toMillis()), decimal(Fingerprint.LENGTH + TOKEN_LENGTH)));
        if (reply == null) {
            return Unknown.INSTANCE;
        }
        Entry entry = switch ((char) reply.getFirst()[0]) {
            case 'F' -> finished(reply.get(1));
            case 'E' -> new Entered(new Marker(token), true);
            case 'T' -> new Entered(new Marker(token), false);
            case 'R' -> running(reply.get(1));
            default -> Unknown.INSTANCE;
        };
        (entry instanceof Finished ? hits : entry instanceof Running ? running : misses).increment();
        return entry;
    }

    /** Another attempt's marker; one too short to hold a fingerprint and a token is none of ours. */
    private static Entry running(byte[] marker) {
        return marker.length <= Fingerprint.LENGTH ? Unknown.INSTANCE
                : new Running(Fingerprint.ofDigest(Arrays.copyOf(marker, Fingerprint.LENGTH)));
    }

    private Entry finished(byte[] value) {
        CachedOutcome outcome;
        try {
            outcome = OutcomeFormat.read(value);
        } catch (IllegalStateException unreadable) {
            // Not one of ours, or damaged: no answer, and the store's replay writes a good one over it.
            log.debug("Unreadable outcome in Redis; asking the store");
            return Unknown.INSTANCE;
        }
        // A value of another format, or one whose record expired by this instance's clock, is no answer.
        return outcome == null || !clock.instant().isBefore(outcome.expiresAt()) ? Unknown.INSTANCE
                : new Finished(outcome);
    }

    @Override
    public void remember(IdempotencyScope scope, CachedOutcome outcome) {
        Instant now = clock.instant();
        Instant until = now.plus(maxTimeToLive);
        long ttl = Duration.between(now, until.isBefore(outcome.expiresAt()) ? until : outcome.expiresAt())
                .toMillis();
        String id = scope.id();
        if (ttl <= 0) {
            // Expired: no outcome, and nothing for the marker to guard any more; a retry runs as a new request.
            call(() -> redis.delete(markerKey(id)));
            return;
        }
        if (outcome.response().bodyLength() > maxBodyBytes || !OutcomeFormat.fits(outcome)) {
            // Not kept, and the marker stays to its end: its duplicates read the store, and a write-once retry
            // that found no marker would run its work again before its record met this one.
            return;
        }
        call(() -> redis.execute(REMEMBER, List.of(outcomeKey(id), markerKey(id)), OutcomeFormat.write(outcome),
                decimal(ttl)));
    }

    @Override
    public void leave(IdempotencyScope scope, Marker marker) {
        // Should Redis not answer now, the marker's own time to live ends it.
        call(() -> redis.execute(LEAVE, List.of(markerKey(scope.id())),
                marker.token().getBytes(StandardCharsets.US_ASCII), decimal(Fingerprint.LENGTH)));
    }

    /** Deletes the scope's outcome and marker; {@code false} unless Redis confirmed it. */
    @Override
    public boolean forget(IdempotencyScope scope) {
        String id = scope.id();
        return call(() -> redis.delete(List.of(outcomeKey(id), markerKey(id)))) != null;
    }

    /**
     * Whether Redis answers a PING, asked like any other call (through the breaker); one that answers makes the
     * connection, so that requests that come at once after it find it made. For startup.
     */
    public boolean ping() {
        return "PONG".equals(call(() -> redis.execute((RedisCallback<String>) connection -> connection.ping())));
    }

    /** How often each answer was given, and how often Redis failed or was not asked. */
    public Statistics statistics() {
        return new Statistics(hits.sum(), misses.sum(), running.sum(), failures.sum(), skipped.sum());
    }

    /** Whether Redis is asked: {@code CLOSED} (yes), {@code OPEN} (no) or {@code HALF_OPEN} (a few probes). */
    public CircuitBreaker.State breakerState() {
        return breaker.getState();
    }

    /**
     * Counts of {@link #enter} answers and of Redis calls.
     *
     * @param hits outcomes found
     * @param misses nothing found, a marker set
     * @param running another attempt's marker found
     * @param failures calls that failed or timed out
     * @param skipped calls not made while the breaker was open
     */
    public record Statistics(long hits, long misses, long running, long failures, long skipped) {
    }

    /** {@code null} if Redis failed or was not asked. */
    private <T> @Nullable T call(Supplier<T> command) {
        // Until Redis has answered once, the connection may still be being made: Spring Data makes it under a
        // lock, one caller at a time, each waiting up to the timeout. Only one call tries then; the others ask
        // the store at once instead of queueing behind it.
        boolean firstContact = !answered;
        if (firstContact && !connecting.tryAcquire()) {
            skipped.increment();
            return null;
        }
        try {
            if (!breaker.tryAcquirePermission()) {
                skipped.increment();
                return null;
            }
            long start = System.nanoTime();
            try {
                T result = command.get();
                breaker.onSuccess(System.nanoTime() - start, TimeUnit.NANOSECONDS);
                answered = true;
                return result;
            } catch (RuntimeException e) {
                breaker.onError(System.nanoTime() - start, TimeUnit.NANOSECONDS, e);
                failures.increment();
                // Only the type: a Redis error's text may quote a key.
                log.debug("Redis outcome cache call failed ({}); asking the store", e.getClass().getSimpleName());
                return null;
            }
        } finally {
            if (firstContact) {
                connecting.release();
            }
        }
    }

    /**
     * 128 random bits in hex, {@value #TOKEN_LENGTH} characters: an attempt's marker needs to be told apart from any
     * other's, not kept secret, so not from {@code SecureRandom}, whose shared source every request would queue on.
     */
    private static String token() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return HexFormat.of().toHexDigits(random.nextLong()) + HexFormat.of().toHexDigits(random.nextLong());
    }

    /**
     * The fingerprint first, so that a duplicate learns which request runs, then the attempt's token, then the
     * marker's life in milliseconds, in decimal.
     */
    private static byte[] markerValue(Fingerprint fingerprint, String token, long life) {
        byte[] digest = fingerprint.digest();
        byte[] rest = (token + life).getBytes(StandardCharsets.US_ASCII);
        byte[] value = Arrays.copyOf(digest, digest.length + rest.length);
        System.arraycopy(rest, 0, value, digest.length, rest.length);
        return value;
    }

    private String outcomeKey(String id) {
        return prefix + ":{" + id + "}:o";
    }

    private String markerKey(String id) {
        return prefix + ":{" + id + "}:m";
    }

    private static byte[] decimal(long value) {
        return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
    }

    /** Settings of a {@link RedisOutcomeCache}; every one but the connection factory has a default. */
    public static final class Builder {
        private final RedisConnectionFactory connectionFactory;
        private String prefix = "onceonly";
        private Duration markerTtl = Duration.ofSeconds(10);
        private Duration maxTimeToLive = Duration.ofHours(1);
        private int maxBodyBytes = 64 * 1024;
        private Duration openFor = Duration.ofSeconds(2);
        private Clock clock = Clock.systemUTC();

        private Builder(RedisConnectionFactory connectionFactory) {
            this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory");
        }

        /** What every key starts with, such as the service's name when services share a Redis; default onceonly. */
        public Builder prefix(String prefix) {
            this.prefix = KeyPrefix.require(prefix);
            return this;
        }

        /**
         * How long after its start an attempt's marker says it may still be running; default 10 s. Within it,
         * duplicates on other instances wait for it, and are told "in progress" (also after its process died); past
         * it, the next attempt takes the marker over and claims first: the store decides. An attempt that claims
         * first has a marker this long; one that writes its record once, as long as {@link #maxTimeToLive} (its
         * outcome reaches Redis at its first replay, and until then its marker is what tells a retry the key was
         * used). An attempt that runs longer only loses the fast answer (its duplicates then ask the store, which
         * still refuses them where the attempt claimed first).
         */
        public Builder markerTtl(Duration markerTtl) {
            this.markerTtl = positive("markerTtl", markerTtl);
            return this;
        }

        /** The longest an outcome is kept, never past its record's expiry; default 1 h. */
        public Builder maxTimeToLive(Duration maxTimeToLive) {
            this.maxTimeToLive = positive("maxTimeToLive", maxTimeToLive);
            return this;
        }

        /** Bodies larger than this are not kept (their replays ask the store); default 64 KiB. */
        public Builder maxBodyBytes(int maxBodyBytes) {
            if (maxBodyBytes < 0) {
                throw new IllegalArgumentException("maxBodyBytes must not be negative");
            }
            this.maxBodyBytes = maxBodyBytes;
            return this;
        }

        /** How long Redis is not asked once failures opened the breaker, before probes; default 2 s. */
        public Builder openFor(Duration openFor) {
            this.openFor = positive("openFor", openFor);
            return this;
        }

        /** Where time comes from, to bound outcomes by their records' expiry; default UTC system clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public RedisOutcomeCache build() {
            return new RedisOutcomeCache(this);
        }

        private static Duration positive(String name, Duration value) {
            Objects.requireNonNull(value, name);
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, but is " + value);
            }
            return value;
        }
    }
}
