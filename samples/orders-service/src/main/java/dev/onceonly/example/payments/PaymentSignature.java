package dev.onceonly.example.payments;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;
import org.springframework.stereotype.Component;

/**
 * Checks the {@code Payment-Signature} header of a webhook delivery:
 * {@code t=<epoch seconds>,v1=<lowercase hex HMAC-SHA256(secret, "<t>.<raw body>")>}.
 *
 * <ol>
 *   <li>The header must be one field of comma-separated {@code name=value} pairs with exactly one {@code t} and at
 *       least one {@code v1} (the provider may sign with two secrets while it rotates them); pairs of other
 *       names are ignored, for schemes the provider may add.</li>
 *   <li>The signature is checked before the timestamp, in constant time, so that only an authentic delivery
 *       learns that it is too old.</li>
 *   <li>The timestamp must lie within the tolerance of the clock, either way: a recorded delivery replayed later
 *       is refused even though its signature is genuine.</li>
 * </ol>
 * Thread-safe.
 */
@Component
public class PaymentSignature {

    /** What a header comes to. */
    public enum Verdict {
        VALID,
        /** No header. */
        MISSING,
        /** Not of the form above. */
        MALFORMED,
        /** No {@code v1} matches the body under the secret. */
        MISMATCH,
        /** Genuine, but signed outside the tolerance. */
        EXPIRED
    }

    private static final Pattern TIMESTAMP = Pattern.compile("[0-9]{1,12}");
    private static final Pattern HEX_SHA256 = Pattern.compile("[0-9a-f]{64}");

    private final SecretKeySpec secret;
    private final Duration tolerance;
    private final Clock clock;

    public PaymentSignature(PaymentsProperties properties, Clock clock) {
        this.secret = new SecretKeySpec(properties.webhookSecret().getBytes(StandardCharsets.UTF_8), "HmacSHA256");
        this.tolerance = properties.signatureTolerance();
        this.clock = clock;
    }

    /**
     * @param fieldValues every value of the {@code Payment-Signature} header the request carried
     * @param body the raw body, byte for byte as received
     */
    public Verdict verify(List<String> fieldValues, byte[] body) {
        if (fieldValues.isEmpty()) {
            return Verdict.MISSING;
        }
        if (fieldValues.size() > 1) {
            return Verdict.MALFORMED;
        }
        @Nullable String timestamp = null;
        List<byte[]> signatures = new ArrayList<>();
        for (String pair : fieldValues.getFirst().split(",", -1)) {
            int equals = pair.indexOf('=');
            if (equals < 0) {
                return Verdict.MALFORMED;
            }
            String name = pair.substring(0, equals).strip();
            String value = pair.substring(equals + 1).strip();
            if (name.equals("t")) {
                if (timestamp != null || !TIMESTAMP.matcher(value).matches()) {
                    return Verdict.MALFORMED;
                }
                timestamp = value;
            } else if (name.equals("v1")) {
                if (!HEX_SHA256.matcher(value).matches()) {
                    return Verdict.MALFORMED;
                }
                signatures.add(HexFormat.of().parseHex(value));
            }
        }
        if (timestamp == null || signatures.isEmpty()) {
            return Verdict.MALFORMED;
        }
        byte[] expected = sign(timestamp, body);
        if (signatures.stream().noneMatch(signature -> MessageDigest.isEqual(signature, expected))) {
            return Verdict.MISMATCH;
        }
        Duration age = Duration.between(Instant.ofEpochSecond(Long.parseLong(timestamp)), clock.instant());
        return age.abs().compareTo(tolerance) > 0 ? Verdict.EXPIRED : Verdict.VALID;
    }

    /** HMAC-SHA256 of {@code "<timestamp>.<body>"}. */
    private byte[] sign(String timestamp, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(secret);
            mac.update((timestamp + ".").getBytes(StandardCharsets.US_ASCII));
            return mac.doFinal(body);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("every Java platform provides HmacSHA256", e);
        }
    }
}
