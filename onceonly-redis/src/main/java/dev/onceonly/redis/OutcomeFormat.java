package dev.onceonly.redis;

import dev.onceonly.Fingerprint;
import dev.onceonly.StoredResponse;
import dev.onceonly.spi.CachedOutcome;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * How an outcome is written into one Redis value: a format byte, the record's fingerprint, its expiry, then the
 * response (status, resource id, headers, body). Binary, since bodies are bytes and every request that replays
 * reads it. A value of another format (a rolling upgrade) reads as nothing.
 */
final class OutcomeFormat {

    private static final byte FORMAT = 1;
    /** More headers or values than a response may carry: the value is damaged. */
    private static final int MAX_COUNT = 1_000;

    private OutcomeFormat() {
    }

    private static int count(int count) throws IOException {
        if (count < 0 || count > MAX_COUNT) {
            throw new IOException("count " + count + " out of range");
        }
        return count;
    }

    /** Whether {@link #read} would read it back: no more headers, nor values of one, than the bound. */
    static boolean fits(CachedOutcome outcome) {
        Map<String, List<String>> headers = outcome.response().headers();
        return headers.size() <= MAX_COUNT && headers.values().stream().allMatch(values -> values.size() <= MAX_COUNT);
    }

    static byte[] write(CachedOutcome outcome) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(outcome.response().bodyLength() + 128);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT);
            out.write(outcome.fingerprint().digest());
            out.writeLong(outcome.expiresAt().toEpochMilli());
            StoredResponse response = outcome.response();
            out.writeInt(response.status());
            String resourceId = response.resourceId();
            out.writeBoolean(resourceId != null);
            if (resourceId != null) {
                out.writeUTF(resourceId);
            }
            out.writeInt(response.headers().size());
            for (Map.Entry<String, List<String>> header : response.headers().entrySet()) {
                out.writeUTF(header.getKey());
                out.writeInt(header.getValue().size());
                for (String value : header.getValue()) {
                    out.writeUTF(value);
                }
            }
            out.writeInt(response.bodyLength());
            out.write(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * {@code null} for a value of another format.
     *
     * @throws IllegalStateException for a value that does not read as an outcome
     */
    static @Nullable CachedOutcome read(byte[] value) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
            if (in.readByte() != FORMAT) {
                return null;
            }
            Fingerprint fingerprint = Fingerprint.ofDigest(in.readNBytes(Fingerprint.LENGTH));
            Instant expiresAt = Instant.ofEpochMilli(in.readLong());
            int status = in.readInt();
            String resourceId = in.readBoolean() ? in.readUTF() : null;
            int headerCount = count(in.readInt());
            Map<String, List<String>> headers = new LinkedHashMap<>();
            for (int h = 0; h < headerCount; h++) {
                String name = in.readUTF();
                int valueCount = count(in.readInt());
                List<String> values = new ArrayList<>(valueCount);
                for (int v = 0; v < valueCount; v++) {
                    values.add(in.readUTF());
                }
                headers.put(name, values);
            }
            int bodyLength = in.readInt();
            if (bodyLength < 0 || bodyLength != in.available()) {
                throw new IOException("body length " + bodyLength + " does not match the value");
            }
            byte[] body = in.readNBytes(bodyLength);
            return new CachedOutcome(fingerprint, StoredResponse.of(status, headers, body, resourceId), expiresAt);
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("unreadable cached outcome", e);
        }
    }
}
