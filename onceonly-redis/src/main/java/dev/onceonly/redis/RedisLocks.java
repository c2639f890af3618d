package dev.onceonly.redis;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Owner-token locks in Redis with fencing tokens, for work that must not run twice at once across instances (a
 * nightly job, one account's reconciliation):
 * <pre>{@code
 * try (RedisLocks.Lock lock = locks.acquire("reconcile:" + accountId, Duration.ofSeconds(30))) {
 *     ledger.write(accountId, entries, lock.fencingToken());   // the ledger refuses a smaller token
 * }
 * }</pre>
 * A lock is {@code SET NX PX} with a random owner token; only its owner can extend or release it (Lua
 * compare-and-set). A lock is a lease, not a guarantee: an owner that stalls past the TTL (a GC pause, a slow
 * call) loses it without knowing, and another owner may take it. That is what the fencing token is for: every
 * acquisition gets a larger one, so a storage write that keeps the largest token seen and refuses smaller ones
 * (for example {@code UPDATE … SET fence = :token … WHERE fence < :token}) refuses the stale owner.
 *
 * <p>Fencing tokens come from a counter per lock name that never expires, floored by Redis's own clock in
 * microseconds: they keep increasing even after Redis lost its data (a restart without persistence), as long as
 * its clock does not go back. Without Redis no lock can be given: {@link #acquire} throws
 * {@link DataAccessException}. Keys: {@code <prefix>:lock:{<name>}} and {@code …:fence}, one hash tag per name.
 * Thread-safe; a {@link Lock} is for the thread that acquired it.
 */
public final class RedisLocks {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9:._-]{1,200}");

    /** Takes the lock and the next fencing token, or answers 0 if another owner holds it. */
    private static final RedisScript<Long> ACQUIRE = RedisScript.of("""
            if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
              return 0
            end
            local now = redis.call('TIME')
            local floor = tonumber(now[1]) * 1000000 + tonumber(now[2])
            local fence = redis.call('INCR', KEYS[2])
            if fence < floor then
              redis.call('SET', KEYS[2], string.format('%.0f', floor))
              fence = floor
            end
            return fence""", Long.class);
    private static final RedisScript<Long> EXTEND = RedisScript.of("""
            if redis.call('GET', KEYS[1]) == ARGV[1] then
              return redis.call('PEXPIRE', KEYS[1], ARGV[2])
            end
            return 0""", Long.class);
    private static final RedisScript<Long> RELEASE = RedisScript.of("""
            if redis.call('GET', KEYS[1]) == ARGV[1] then
              return redis.call('DEL', KEYS[1])
            end
            return 0""", Long.class);

    private final StringRedisTemplate redis;
    private final String prefix;

    /** Locks under keys that start with {@code onceonly}. */
    public RedisLocks(StringRedisTemplate redis) {
        this(redis, "onceonly");
    }

    /** @param prefix what the keys start with, such as the service's name where services share a Redis */
    public RedisLocks(StringRedisTemplate redis, String prefix) {
        this.redis = Objects.requireNonNull(redis, "redis");
        this.prefix = KeyPrefix.require(prefix);
    }

    /**
     * Takes the lock {@code name} for {@code ttl}, or fails at once if another owner holds it.
     *
     * @param name letters, digits and {@code :._-}, up to 200 characters
     * @throws LockNotAcquiredException if another owner holds it
     * @throws DataAccessException if Redis cannot be reached
     */
    public Lock acquire(String name, Duration ttl) {
        return acquire(name, ttl, Duration.ZERO);
    }

    /**
     * Takes the lock {@code name} for {@code ttl}, trying every 50 ms for up to {@code wait}.
     *
     * @throws LockNotAcquiredException if another owner still holds it when the wait is over
     * @throws DataAccessException if Redis cannot be reached
     */
    public Lock acquire(String name, Duration ttl, Duration wait) {
        requireName(name);
        long ttlMillis = positive("ttl", ttl).toMillis();
        Objects.requireNonNull(wait, "wait");
        String token = UUID.randomUUID().toString();
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            Long fence = redis.execute(ACQUIRE, List.of(lockKey(name), fenceKey(name)), token,
                    Long.toString(ttlMillis));
            if (fence != null && fence > 0) {
                return new Lock(name, token, fence);
            }
            if (System.nanoTime() >= deadline) {
                throw new LockNotAcquiredException(name);
            }
            LockSupport.parkNanos(Math.min(Duration.ofMillis(50).toNanos(), deadline - System.nanoTime()));
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new LockNotAcquiredException(name);
            }
        }
    }

    /** A held lock; closing releases it if this owner still holds it. */
    public final class Lock implements AutoCloseable {
        private final String name;
        private final String token;
        private final long fencingToken;

        private Lock(String name, String token, long fencingToken) {
            this.name = name;
            this.token = token;
            this.fencingToken = fencingToken;
        }

        public String name() {
            return name;
        }

        /** Larger than that of every earlier acquisition of this name: pass it to the storage you write. */
        public long fencingToken() {
            return fencingToken;
        }

        /**
         * Extends the lock to {@code ttl} from now.
         *
         * @return {@code false} if this owner lost the lock (its TTL ran out; another owner may hold it)
         * @throws DataAccessException if Redis cannot be reached
         */
        public boolean extend(Duration ttl) {
            Long extended = redis.execute(EXTEND, List.of(lockKey(name)), token, Long.toString(positive("ttl", ttl)
                    .toMillis()));
            return extended != null && extended == 1;
        }

        /**
         * Releases the lock.
         *
         * @return {@code false} if this owner had lost it already: nothing was released
         * @throws DataAccessException if Redis cannot be reached (the lock then runs out by its TTL)
         */
        public boolean release() {
            Long released = redis.execute(RELEASE, List.of(lockKey(name)), token);
            return released != null && released == 1;
        }

        @Override
        public void close() {
            release();
        }
    }

    /** Thrown when a lock is held by another owner. */
    public static final class LockNotAcquiredException extends RuntimeException {
        LockNotAcquiredException(String name) {
            super("The lock '" + name + "' is held by another owner");
        }
    }

    private String lockKey(String name) {
        return prefix + ":lock:{" + name + "}";
    }

    private String fenceKey(String name) {
        return prefix + ":lock:{" + name + "}:fence";
    }

    private static void requireName(String name) {
        if (!NAME.matcher(Objects.requireNonNull(name, "name")).matches()) {
            throw new IllegalArgumentException("A lock name is 1 to 200 letters, digits and ':._-'");
        }
    }

    private static Duration positive(String what, Duration value) {
        Objects.requireNonNull(value, what);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, but is " + value);
        }
        return value;
    }
}
