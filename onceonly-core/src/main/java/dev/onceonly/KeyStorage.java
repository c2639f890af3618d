package dev.onceonly;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * What the engine keeps of a client's idempotency key: the key itself, or only its digest, for clients that put
 * identifiers (an account number, an e-mail address) into keys.
 *
 * <p>With a digest, the engine replaces the key by it before anything else sees the scope: the store, the replay
 * memory, log lines and exception messages all carry the digest, never the key. The same key always gives the
 * same digest, so duplicates, replays and refusals work unchanged, and a record is found again by digesting the
 * key given ({@link IdempotencyEngine#find}). A digest is {@code sha256:} or {@code hmac-sha256:} followed by the
 * unpadded base64url SHA-256 of the key's UTF-8 bytes (50 or 55 characters), so it fits every key column and
 * tells what it is.
 *
 * <p>{@link #hmacSha256(byte[])} is the recommended form: a plain SHA-256 of a short or guessable key (a
 * customer number) can be reversed by hashing every candidate, while an HMAC cannot without the secret. The
 * secret then cannot change without every stored record counting as new. Immutable and thread-safe.
 */
public final class KeyStorage {

    /** The shortest HMAC secret accepted: as long as the SHA-256 output, as RFC 2104 recommends. */
    public static final int MIN_SECRET_LENGTH = 32;

    private static final KeyStorage RAW = new KeyStorage("raw", null, null);

    private final String name;
    private final @Nullable String prefix;
    private final @Nullable SecretKeySpec secret;

    private KeyStorage(String name, @Nullable String prefix, @Nullable SecretKeySpec secret) {
        this.name = name;
        this.prefix = prefix;
        this.secret = secret;
    }

    /** Keys are stored as the client sent them: the default. */
    public static KeyStorage raw() {
        return RAW;
    }

    /** Only the SHA-256 of each key is stored; a guessable key can be found from it by trying candidates. */
    public static KeyStorage sha256() {
        return new KeyStorage("sha256", "sha256:", null);
    }

    /**
     * Only the HMAC-SHA256 of each key under {@code secret} is stored. Every instance sharing the store needs the
     * same secret; changing it makes every stored record count as new.
     *
     * @param secret at least {@value #MIN_SECRET_LENGTH} bytes; copied
     * @throws IdempotencyConfigurationException if the secret is shorter
     */
    public static KeyStorage hmacSha256(byte[] secret) {
        Objects.requireNonNull(secret, "secret");
        if (secret.length < MIN_SECRET_LENGTH) {
            throw IdempotencyConfigurationException.of("keyStorage", "the HMAC secret must have at least "
                    + MIN_SECRET_LENGTH + " bytes, but has " + secret.length,
                    "Use a random secret, e.g. the output of: openssl rand -base64 32");
        }
        return new KeyStorage("hmac-sha256", "hmac-sha256:", new SecretKeySpec(secret.clone(), "HmacSHA256"));
    }

    /** The key as it is stored and logged: {@code key} itself, or its digest. */
    public IdempotencyKey stored(IdempotencyKey key) {
        Objects.requireNonNull(key, "key");
        if (prefix == null) {
            return key;
        }
        byte[] digest = digest(key.value().getBytes(StandardCharsets.UTF_8));
        return new IdempotencyKey(prefix + Base64.getUrlEncoder().withoutPadding().encodeToString(digest));
    }

    /** {@code scope} with its key {@linkplain #stored(IdempotencyKey) as stored}. */
    public IdempotencyScope stored(IdempotencyScope scope) {
        Objects.requireNonNull(scope, "scope");
        return prefix == null ? scope : new IdempotencyScope(scope.owner(), scope.operation(), stored(scope.key()));
    }

    private byte[] digest(byte[] value) {
        try {
            if (secret == null) {
                return MessageDigest.getInstance("SHA-256").digest(value);
            }
            // A Mac is not thread-safe; a fresh one per key costs about a microsecond.
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(secret);
            return mac.doFinal(value);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Every Java runtime provides SHA-256 and HmacSHA256", e);
        }
    }

    /** The form's name ({@code raw}, {@code sha256} or {@code hmac-sha256}), never the secret. */
    @Override
    public String toString() {
        return name;
    }
}
