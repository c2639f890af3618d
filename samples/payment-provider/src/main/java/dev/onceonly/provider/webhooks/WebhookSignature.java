package dev.onceonly.provider.webhooks;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The {@code Payment-Signature} header: {@code t=<epoch seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>}.
 * The timestamp inside the signed text lets a receiver refuse old replays.
 */
final class WebhookSignature {

    static final String HEADER = "Payment-Signature";
    private static final String ALGORITHM = "HmacSHA256";

    private WebhookSignature() {
    }

    static String header(String secret, Instant timestamp, byte[] body) {
        long seconds = timestamp.getEpochSecond();
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), ALGORITHM));
            mac.update((seconds + ".").getBytes(StandardCharsets.US_ASCII));
            return "t=" + seconds + ",v1=" + HexFormat.of().formatHex(mac.doFinal(body));
        } catch (NoSuchAlgorithmException | InvalidKeyException unavailable) {
            // Every JDK has HmacSHA256 and accepts any non-empty key for it.
            throw new IllegalStateException("HmacSHA256 is unavailable", unavailable);
        }
    }
}
