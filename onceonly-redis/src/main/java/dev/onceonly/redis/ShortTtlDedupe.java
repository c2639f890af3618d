package dev.onceonly.redis;

import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.RequestInProgressException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Short-TTL dedupe for effects outside the database (an SMS, an e-mail, a push), the seed's SETNX-with-TTL
 * consumer dedupe made safe against failures: a key is claimed in Redis with a short lease ({@code SET NX PX}),
 * the effect runs, and the key is then marked done for the TTL (compare-and-set by the claim's token); an effect
 * that throws deletes its own claim (compare-and-delete), so a redelivery runs it again.
 *
 * <p><b>What it does not promise</b>, unlike the inbox (which shares the effect's database transaction):
 * <ul>
 *   <li>A process that dies after the effect and before marking it done leaves a claim that runs out after the
 *       lease: a redelivery then runs the effect again. At least once, not exactly once.</li>
 *   <li>A duplicate that comes after the TTL runs again; keep the TTL longer than the broker's redelivery window.</li>
 *   <li>Redis that loses data (a failover to a replica behind, a restart without persistence) forgets keys.</li>
 *   <li>With Redis unreachable, nothing runs: the call throws, and the message waits for Redis (a duplicate SMS is
 *       what this is for).</li>
 *   <li>An effect longer than the lease may run twice at once: keep the lease above the effect's longest time.</li>
 * </ul>
 * Keys are {@code onceonly:dedupe:<length of namespace>:<namespace>:<key>}, one Redis key per message, so it works
 * on Redis Cluster.
 * Thread-safe.
 */
public final class ShortTtlDedupe {

    private static final Logger log = LoggerFactory.getLogger(ShortTtlDedupe.class);
    private static final String DONE = "done";
    /** Marks the claim done, if it is still this claim's. */
    private static final RedisScript<Boolean> MARK_DONE = RedisScript.of("""
            if redis.call('GET', KEYS[1]) == ARGV[1] then
              redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
              return 1
            end
            return 0""", Boolean.class);
    /** Deletes the claim, if it is still this claim's. */
    private static final RedisScript<Boolean> RELEASE = RedisScript.of("""
            if redis.call('GET', KEYS[1]) == ARGV[1] then
              redis.call('DEL', KEYS[1])
              return 1
            end
            return 0""", Boolean.class);

    private final StringRedisTemplate redis;
    private final String namespace;
    private final Duration ttl;
    private final Duration lease;
    private final Duration retryAfter;

    /**
     * @param namespace whose keys these are, such as the consumer's name
     * @param ttl how long a done key is remembered
     * @param lease how long a claim lasts while its effect runs, longer than the effect's longest time
     */
    public ShortTtlDedupe(StringRedisTemplate redis, String namespace, Duration ttl, Duration lease) {
        this.redis = Objects.requireNonNull(redis, "redis");
        this.namespace = Objects.requireNonNull(namespace, "namespace");
        this.ttl = requirePositive("ttl", ttl);
        this.lease = requirePositive("lease", lease);
        this.retryAfter = lease;
    }

    /** An effect to run once. */
    @FunctionalInterface
    public interface Effect<X extends Exception> {
        void run() throws X;
    }

    /**
     * Runs {@code effect} unless {@code key} ran within the TTL.
     *
     * @return {@code true} if it ran now, {@code false} for a duplicate
     * @throws RequestInProgressException if another call holds the key's claim: try again later
     * @throws org.springframework.dao.DataAccessException if Redis cannot be reached; nothing ran
     * @throws X what the effect throws; its claim is deleted first, so a retry runs it again
     */
    public <X extends Exception> boolean runOnce(String key, Effect<X> effect) throws X {
        IdempotencyKey validated = new IdempotencyKey(key);
        // The namespace's length keeps "a" + "b:c" apart from "a:b" + "c".
        String redisKey = "onceonly:dedupe:" + namespace.length() + ":" + namespace + ":" + validated.value();
        String token = "claim:" + UUID.randomUUID();
        Boolean claimed = redis.opsForValue().setIfAbsent(redisKey, token, lease);
        if (claimed == null) {
            throw new IllegalStateException("The Redis template answered no result (pipelined or in a Redis "
                    + "transaction); the dedupe needs one that runs each command at once");
        }
        if (!claimed) {
            if (DONE.equals(redis.opsForValue().get(redisKey))) {
                return false;
            }
            throw RequestInProgressException.of(IdempotencyScope.of(namespace, "dedupe", validated), retryAfter);
        }
        try {
            effect.run();
        } catch (Exception | Error failed) {
            try {
                redis.execute(RELEASE, List.of(redisKey), token);
            } catch (RuntimeException releaseFailed) {
                // The claim then runs out after its lease; the effect's failure is what the caller must hear.
                failed.addSuppressed(releaseFailed);
            }
            throw failed;
        }
        try {
            if (!Boolean.TRUE.equals(redis.execute(MARK_DONE, List.of(redisKey), token, DONE,
                    Long.toString(ttl.toMillis())))) {
                log.warn("The dedupe claim of namespace={} ran out before its effect finished; raise the lease",
                        namespace);
            }
        } catch (DataAccessException e) {
            // The effect took place: failing now would only make the redelivery repeat it once the claim ran out.
            log.warn("Could not mark a dedupe key of namespace={} done ({}); a redelivery after the lease repeats "
                    + "its effect", namespace, e.getClass().getSimpleName());
        }
        return true;
    }

    private static Duration requirePositive(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive");
        }
        return value;
    }
}
