package dev.onceonly.example.payments;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.example.payments.PaymentSignature.Verdict;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PaymentSignatureTest {

    private static final String SECRET = "whsec_test_secret_0123456789";
    private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");
    private static final String HEX = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    private static final String UPPER_HEX = "0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF";
    private static final byte[] BODY = "{\"id\":\"evt_1\"}".getBytes(StandardCharsets.UTF_8);

    private final PaymentSignature signature = new PaymentSignature(
            new PaymentsProperties(SECRET, Duration.ofMinutes(5), URI.create("http://localhost:8090"),
                    Duration.ofSeconds(2), Duration.ofSeconds(5), 3), Clock.fixed(NOW, ZoneOffset.UTC));

    @Test
    void bodySignedWithTheSecretAtTheCurrentTimeIsValid() throws Exception {
        long t = NOW.getEpochSecond();

        Verdict verdict = signature.verify(List.of("t=" + t + ",v1=" + hmac(SECRET, t + ".", BODY)), BODY);

        assertThat(verdict).isEqualTo(Verdict.VALID);
    }

    @Test
    void anyOfSeveralSignaturesMayMatchAndUnknownSchemesAreIgnored() throws Exception {
        long t = NOW.getEpochSecond();
        String other = hmac("another_secret_0123456789", t + ".", BODY);

        Verdict verdict = signature.verify(List.of("t=" + t + ", v1=" + other + ", v1=" + hmac(SECRET, t + ".", BODY)
                + ", v0=whatever"), BODY);

        assertThat(verdict).isEqualTo(Verdict.VALID);
    }

    @Test
    void changedBodyOrOtherSecretDoNotMatch() throws Exception {
        long t = NOW.getEpochSecond();
        byte[] changed = "{\"id\":\"evt_2\"}".getBytes(StandardCharsets.UTF_8);

        Verdict otherBody = signature.verify(List.of("t=" + t + ",v1=" + hmac(SECRET, t + ".", BODY)), changed);
        Verdict otherSecret = signature.verify(List.of("t=" + t + ",v1=" + hmac("another_secret_0123456789",
                t + ".", BODY)), BODY);
        Verdict otherTimestamp = signature.verify(List.of("t=" + (t + 1) + ",v1=" + hmac(SECRET, t + ".", BODY)),
                BODY);

        assertThat(List.of(otherBody, otherSecret, otherTimestamp)).containsOnly(Verdict.MISMATCH);
    }

    @Test
    void genuineSignatureOutsideTheToleranceEitherWayHasExpired() throws Exception {
        long old = NOW.minus(Duration.ofMinutes(5)).minusSeconds(1).getEpochSecond();
        long ahead = NOW.plus(Duration.ofMinutes(5)).plusSeconds(1).getEpochSecond();
        long edge = NOW.minus(Duration.ofMinutes(5)).getEpochSecond();

        Verdict tooOld = signature.verify(List.of("t=" + old + ",v1=" + hmac(SECRET, old + ".", BODY)), BODY);
        Verdict tooNew = signature.verify(List.of("t=" + ahead + ",v1=" + hmac(SECRET, ahead + ".", BODY)), BODY);
        Verdict atEdge = signature.verify(List.of("t=" + edge + ",v1=" + hmac(SECRET, edge + ".", BODY)), BODY);

        assertThat(tooOld).isEqualTo(Verdict.EXPIRED);
        assertThat(tooNew).isEqualTo(Verdict.EXPIRED);
        assertThat(atEdge).isEqualTo(Verdict.VALID);
    }

    @Test
    void missingHeaderIsMissing() {
        assertThat(signature.verify(List.of(), BODY)).isEqualTo(Verdict.MISSING);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "garbage", "t=1700000000", "v1=" + HEX, "t=abc,v1=" + HEX,
        "t=1,t=2,v1=" + HEX, "t=1700000000,v1=" + UPPER_HEX, "t=1700000000,v1=abc",
        "t=1700000000;v1=" + HEX, "t=-1,v1=" + HEX})
    void headerNotOfTheFormIsMalformed(String header) {
        assertThat(signature.verify(List.of(header), BODY)).isEqualTo(Verdict.MALFORMED);
    }

    @Test
    void severalHeaderFieldsAreMalformed() throws Exception {
        long t = NOW.getEpochSecond();
        String valid = "t=" + t + ",v1=" + hmac(SECRET, t + ".", BODY);

        assertThat(signature.verify(List.of(valid, valid), BODY)).isEqualTo(Verdict.MALFORMED);
    }

    static String hmac(String secret, String prefix, byte[] body) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        mac.update(prefix.getBytes(StandardCharsets.US_ASCII));
        return HexFormat.of().formatHex(mac.doFinal(body));
    }
}
