package dev.onceonly.crypto;

import dev.onceonly.IdempotencyConfigurationException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * A key ring for {@link EncryptingIdempotencyStore}: every key that stored responses may be read with, by id, and
 * the one active key new responses are written with. Rotating keys means adding a key, making it active, and
 * removing the old one only once every record written under it has expired.
 *
 * <p>Responses stored before encryption was switched on are readable too, unless {@link #refusingPlaintext()}:
 * once every such record has expired, refusing them means that a row written into the table directly, without
 * a key, is never replayed.
 *
 * <p>Keys are AES-256 keys (32 bytes). Ids are 1 to 64 letters, digits, {@code _} or {@code -}; they are stored
 * with each record and appear in messages, so they must not be secret. Key material never appears in a message
 * or in {@link #toString()}. Immutable and thread-safe.
 */
public final class EncryptionKeys {

    /** The length of every key, in bytes (AES-256). */
    public static final int KEY_LENGTH = 32;

    private static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    static boolean isKeyId(String id) {
        return KEY_ID.matcher(id).matches();
    }

    private final String activeKeyId;
    private final Map<String, SecretKey> keys;
    private final boolean plaintextReadable;

    private EncryptionKeys(String activeKeyId, Map<String, SecretKey> keys, boolean plaintextReadable) {
        this.activeKeyId = activeKeyId;
        this.keys = keys;
        this.plaintextReadable = plaintextReadable;
    }

    /**
     * @param activeKeyId the id of the key new responses are encrypted with; must be one of {@code keys}
     * @param keys every readable key by id; the arrays are copied
     * @throws IdempotencyConfigurationException naming {@code activeKeyId} or {@code keys.<id>} if an id is
     *     malformed, a key is not {@value #KEY_LENGTH} bytes long, or the active key is missing
     */
    public static EncryptionKeys of(String activeKeyId, Map<String, byte[]> keys) {
        Objects.requireNonNull(activeKeyId, "activeKeyId");
        Map<String, SecretKey> ring = new LinkedHashMap<>();
        keys.forEach((id, key) -> {
            if (!KEY_ID.matcher(id).matches()) {
                throw IdempotencyConfigurationException.of("keys", "key ids must be 1 to 64 letters, digits, '_' "
                        + "or '-', not '" + id + "'");
            }
            if (key.length != KEY_LENGTH) {
                throw IdempotencyConfigurationException.of("keys." + id, "must be a 256-bit AES key (" + KEY_LENGTH
                        + " bytes), but is " + key.length + " bytes long", "Generate one with `openssl rand "
                        + "-base64 32`");
            }
            ring.put(id, new SecretKeySpec(key, "AES"));
        });
        if (!ring.containsKey(activeKeyId)) {
            throw IdempotencyConfigurationException.of("activeKeyId", "'" + activeKeyId + "' is not among the "
                    + "keys " + ring.keySet(), "Add the key under that id, or make one of the keys active");
        }
        return new EncryptionKeys(activeKeyId, Collections.unmodifiableMap(ring), true);
    }

    /** The same keys, but a stored response without encryption is refused (503) instead of replayed. */
    public EncryptionKeys refusingPlaintext() {
        return new EncryptionKeys(activeKeyId, keys, false);
    }

    /** Whether responses stored without encryption are replayed; {@code true} unless {@link #refusingPlaintext()}. */
    public boolean plaintextReadable() {
        return plaintextReadable;
    }

    /** The id new responses are encrypted under. */
    public String activeKeyId() {
        return activeKeyId;
    }

    /** The ids of every readable key, the active one included. */
    public Set<String> keyIds() {
        return keys.keySet();
    }

    SecretKey activeKey() {
        // The constructor refuses an active key id that names no key.
        return Objects.requireNonNull(keys.get(activeKeyId), "active key");
    }

    Optional<SecretKey> key(String id) {
        return Optional.ofNullable(keys.get(id));
    }

    /** Ids only, never key material. */
    @Override
    public String toString() {
        return "EncryptionKeys[active=" + activeKeyId + ", readable=" + keys.keySet()
                + (plaintextReadable ? " and plaintext" : "") + "]";
    }
}
