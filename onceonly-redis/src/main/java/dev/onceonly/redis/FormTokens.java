package dev.onceonly.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * One-time anti-resubmit form tokens (the seed's "token" pattern): a page gets a token when it renders the form,
 * and the submission consumes it, once. A second submission of the same form (a double click whose page made a new
 * idempotency key, a resubmitted old tab) finds the token used.
 *
 * <p>Tokens are bound to their owner and form: one issued to alice for checkout is unknown to bob and to any other
 * form. A consumed token is kept as used (until its TTL would have ended) so that a reuse is told apart from a token
 * that expired or never was. Consumption is one Lua compare-and-set; {@link Consumption#restore()} undoes it when
 * the submission's transaction rolls back, so a failure does not burn the user's token.
 *
 * <p>Trade-offs: a form token is a user-experience guard, not the exactly-once guarantee; that is the
 * Idempotency-Key's. Consume the token inside the idempotent operation, so that a retry with the same key replays
 * the stored answer instead of finding its token used. Without Redis nothing can be checked:
 * {@link #consume} then throws {@link DataAccessException}, and the application chooses to refuse or, as the
 * reference service does, to go on under the Idempotency-Key alone.
 *
 * <p>Keys: {@code <prefix>:form:{<owner digest>}:<form>:<token>}, one hash tag per owner. Thread-safe.
 */
public final class FormTokens {

    /** How a consumption went. */
    public enum Outcome {
        /** The token was valid and is now used. */
        CONSUMED,
        /** The token was consumed before. */
        ALREADY_USED,
        /** The token expired, was never issued, or was issued to another owner or form. */
        UNKNOWN
    }

    private static final String ISSUED = "issued";
    private static final String USED = "used";
    private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9_-]{22}");
    private static final Pattern FORM = Pattern.compile("[a-z0-9-]{1,64}");
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Marks an issued token used for the rest of its time; answers 1, 2 (used before) or 0 (unknown). */
    private static final RedisScript<Long> CONSUME = RedisScript.of("""
            local state = redis.call('GET', KEYS[1])
            if state == ARGV[1] then
              redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
              return 1
            end
            if state == ARGV[2] then
              return 2
            end
            return 0""", Long.class);
    /** Makes a used token issued again, if it still exists. */
    private static final RedisScript<Long> RESTORE = RedisScript.of("""
            if redis.call('GET', KEYS[1]) == ARGV[2] then
              redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL')
              return 1
            end
            return 0""", Long.class);

    private final StringRedisTemplate redis;
    private final String prefix;
    private final String form;
    private final Duration ttl;

    /**
     * Tokens under keys that start with {@code onceonly}.
     *
     * @param form which form the tokens are for: lower-case letters, digits and dashes, such as {@code checkout}
     * @param ttl how long an issued token may be submitted
     */
    public FormTokens(StringRedisTemplate redis, String form, Duration ttl) {
        this(redis, "onceonly", form, ttl);
    }

    /** @param prefix what the keys start with, such as the service's name where services share a Redis */
    public FormTokens(StringRedisTemplate redis, String prefix, String form, Duration ttl) {
        this.redis = Objects.requireNonNull(redis, "redis");
        this.prefix = KeyPrefix.require(prefix);
        if (!FORM.matcher(Objects.requireNonNull(form, "form")).matches()) {
            throw new IllegalArgumentException("form must be 1 to 64 lower-case letters, digits and dashes");
        }
        this.form = form;
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl must be positive, but is " + ttl);
        }
        this.ttl = ttl;
    }

    /**
     * A new token for {@code owner}: 128 random bits, base64url.
     *
     * @throws DataAccessException if Redis cannot be reached
     */
    public String issue(String owner) {
        byte[] bits = new byte[16];
        RANDOM.nextBytes(bits);
        String token = Base64.getUrlEncoder().withoutPadding().encodeToString(bits);
        redis.opsForValue().set(key(owner, token), ISSUED, ttl);
        return token;
    }

    /** How long an issued token may be submitted. */
    public Duration ttl() {
        return ttl;
    }

    /**
     * Consumes {@code token} for {@code owner}, atomically: of two concurrent submissions exactly one gets
     * {@link Outcome#CONSUMED}. A value that is no token at all is {@link Outcome#UNKNOWN}, without asking Redis.
     *
     * @throws DataAccessException if Redis cannot be reached
     */
    public Consumption consume(String owner, @Nullable String token) {
        Objects.requireNonNull(owner, "owner");
        if (token == null || !TOKEN.matcher(token).matches()) {
            return new Consumption(Outcome.UNKNOWN, "");
        }
        String key = key(owner, token);
        Long answer = redis.execute(CONSUME, List.of(key), ISSUED, USED);
        Outcome outcome = answer == null || answer == 0 ? Outcome.UNKNOWN
                : answer == 1 ? Outcome.CONSUMED : Outcome.ALREADY_USED;
        return new Consumption(outcome, key);
    }

    /** A consumption's outcome, and the way to undo it. */
    public final class Consumption {
        private final Outcome outcome;
        private final String key;

        private Consumption(Outcome outcome, String key) {
            this.outcome = outcome;
            this.key = key;
        }

        public Outcome outcome() {
            return outcome;
        }

        /**
         * Makes the token valid again, if this call consumed it and it has not expired: for a submission that
         * rolled back.
         *
         * @throws DataAccessException if Redis cannot be reached
         */
        public void restore() {
            if (outcome == Outcome.CONSUMED) {
                redis.execute(RESTORE, List.of(key), ISSUED, USED);
            }
        }
    }

    private String key(String owner, String token) {
        String ownerTag = Base64.getUrlEncoder().withoutPadding().encodeToString(sha256(owner));
        return prefix + ":form:{" + ownerTag + "}:" + form + ":" + token;
    }

    /** The owner's digest: its hash tag, which names no owner in clear. */
    private static byte[] sha256(String owner) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(owner.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
