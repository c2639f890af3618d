package dev.onceonly.crypto;

import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.StoredResponse;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import org.jspecify.annotations.Nullable;

/**
 * The stored form of an encrypted response. How it works:
 * <ol>
 *   <li>Headers and body are packed into one plaintext (header count, then per header its name and values, each
 *       length-prefixed UTF-8, then the body bytes), so header values such as {@code Location} are hidden too.</li>
 *   <li>It is encrypted with AES-GCM under a fresh random 12-byte nonce. The associated data binds the ciphertext
 *       to its record: the envelope's prefix (format, key id), the scope (owner, operation, key), the status and
 *       the resource id. A ciphertext copied to another record, or a changed status, fails authentication.</li>
 *   <li>The stored body is {@code [format 1][key id length][key id][nonce][ciphertext and 128-bit tag]}; the
 *       stored headers are only {@value #MARKER}: {@value #FORMAT}, which tells an envelope from a response
 *       stored before encryption was switched on. Status and resource id stay as they are.</li>
 * </ol>
 */
final class ResponseEnvelope {

    /** The one header of a sealed response. */
    static final String MARKER = StoredResponse.SEALED_HEADER;
    static final String FORMAT = "1";

    private static final byte FORMAT_BYTE = 1;
    private static final String TRANSFORMATION = "AES/GCM/NoPadding";
    private static final int NONCE_LENGTH = 12;
    private static final int TAG_BITS = 128;

    private ResponseEnvelope() {
    }

    static StoredResponse seal(StoredResponse response, IdempotencyScope scope, String keyId, SecretKey key,
            SecureRandom random) {
        byte[] prefix = prefix(keyId);
        byte[] nonce = new byte[NONCE_LENGTH];
        random.nextBytes(nonce);
        byte[] ciphertext;
        try {
            Cipher cipher = Cipher.getInstance(TRANSFORMATION);
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(associatedData(prefix, scope, response.status(), response.resourceId()));
            ciphertext = cipher.doFinal(pack(response));
        } catch (GeneralSecurityException e) {
            throw new IdempotencyStoreException("could not encrypt the response of operation '"
                    + scope.operation() + "'", e);
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream(prefix.length + NONCE_LENGTH + ciphertext.length);
        body.writeBytes(prefix);
        body.writeBytes(nonce);
        body.writeBytes(ciphertext);
        return StoredResponse.of(response.status(), Map.of(MARKER, List.of(FORMAT)), body.toByteArray(),
                response.resourceId());
    }

    /**
     * @throws IdempotencyStoreException if the envelope is malformed, its key is not in the ring, or it fails
     *     authentication (altered, or moved from another record)
     */
    static StoredResponse open(StoredResponse sealed, IdempotencyScope scope, EncryptionKeys keys) {
        byte[] body = sealed.body();
        if (!sealed.headers().equals(Map.of(MARKER, List.of(FORMAT))) || body.length < 2 || body[0] != FORMAT_BYTE
                || body[1] < 1 || body.length < 2 + body[1] + NONCE_LENGTH + TAG_BITS / 8) {
            throw unreadable(scope, "is not an encryption envelope of format " + FORMAT);
        }
        int prefixLength = 2 + body[1];
        String keyId = new String(body, 2, body[1], StandardCharsets.US_ASCII);
        if (!EncryptionKeys.isKeyId(keyId)) {
            // Read from the table: unchecked, it would reach messages and logs as whoever wrote the row chose.
            throw unreadable(scope, "names no valid key id");
        }
        SecretKey key = keys.key(keyId).orElseThrow(() -> unreadable(scope, "is encrypted with key '" + keyId
                + "', which is not among the readable keys " + keys.keyIds()));
        byte[] plaintext;
        try {
            Cipher cipher = Cipher.getInstance(TRANSFORMATION);
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, body, prefixLength, NONCE_LENGTH));
            cipher.updateAAD(associatedData(prefix(keyId), scope, sealed.status(), sealed.resourceId()));
            int start = prefixLength + NONCE_LENGTH;
            plaintext = cipher.doFinal(body, start, body.length - start);
        } catch (AEADBadTagException e) {
            throw unreadable(scope, "failed authentication with key '" + keyId + "': it was altered, or belongs "
                    + "to another record");
        } catch (GeneralSecurityException e) {
            throw new IdempotencyStoreException("could not decrypt the response of operation '" + scope.operation()
                    + "'", e);
        }
        return unpack(plaintext, sealed.status(), sealed.resourceId());
    }

    private static IdempotencyStoreException unreadable(IdempotencyScope scope, String problem) {
        return new IdempotencyStoreException("the stored response of operation '" + scope.operation() + "' "
                + problem);
    }

    private static byte[] prefix(String keyId) {
        byte[] id = keyId.getBytes(StandardCharsets.US_ASCII);
        byte[] prefix = new byte[2 + id.length];
        prefix[0] = FORMAT_BYTE;
        prefix[1] = (byte) id.length;
        System.arraycopy(id, 0, prefix, 2, id.length);
        return prefix;
    }

    private static byte[] associatedData(byte[] prefix, IdempotencyScope scope, int status,
            @Nullable String resourceId) {
        return write(out -> {
            out.write(prefix);
            writeString(out, scope.owner());
            writeString(out, scope.operation());
            writeString(out, scope.key().value());
            out.writeInt(status);
            out.writeBoolean(resourceId != null);
            if (resourceId != null) {
                writeString(out, resourceId);
            }
        });
    }

    private static byte[] pack(StoredResponse response) {
        return write(out -> {
            out.writeInt(response.headers().size());
            for (Map.Entry<String, List<String>> header : response.headers().entrySet()) {
                writeString(out, header.getKey());
                out.writeInt(header.getValue().size());
                for (String value : header.getValue()) {
                    writeString(out, value);
                }
            }
            out.write(response.body());
        });
    }

    private static StoredResponse unpack(byte[] plaintext, int status, @Nullable String resourceId) {
        // Authenticated, so only a bug of ours can make it malformed; fail closed all the same.
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(plaintext))) {
            Map<String, List<String>> headers = new LinkedHashMap<>();
            int count = in.readInt();
            for (int i = 0; i < count; i++) {
                String name = readString(in);
                int values = in.readInt();
                List<String> list = new ArrayList<>(values);
                for (int v = 0; v < values; v++) {
                    list.add(readString(in));
                }
                headers.put(name, list);
            }
            return StoredResponse.of(status, headers, in.readAllBytes(), resourceId);
        } catch (IOException | IllegalArgumentException e) {
            throw new IdempotencyStoreException("a decrypted response could not be unpacked", e);
        }
    }

    private static void writeString(DataOutputStream out, String value) throws IOException {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static String readString(DataInputStream in) throws IOException {
        return new String(in.readNBytes(in.readInt()), StandardCharsets.UTF_8);
    }

    private interface Writer {
        void write(DataOutputStream out) throws IOException;
    }

    private static byte[] write(Writer writer) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            writer.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory cannot fail", e);
        }
        return bytes.toByteArray();
    }
}
