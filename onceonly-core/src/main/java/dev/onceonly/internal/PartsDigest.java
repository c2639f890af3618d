package dev.onceonly.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * SHA-256 over a sequence of strings, each prefixed with its UTF-8 length, so that no two different sequences
 * spell the same input ("ab", "c" and "a", "bc" differ): for ids derived from a scope.
 */
public final class PartsDigest {

    private PartsDigest() {
    }

    public static byte[] sha256(String... parts) {
        MessageDigest sha256;
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform provides SHA-256", e);
        }
        for (String part : parts) {
            byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
            sha256.update(ByteBuffer.allocate(Integer.BYTES).putInt(bytes.length).array());
            sha256.update(bytes);
        }
        return sha256.digest();
    }
}
