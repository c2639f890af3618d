package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The hashed input of scheme 1, byte for byte, as the class comment of {@link Fingerprint} lays it out. */
class FingerprintTest {

    private static final String METHOD_POST = "4d" + "00000004" + "504f5354";
    private static final String ROUTE_ORDERS = "52" + "00000007" + "2f6f7264657273";
    private static final String COMPONENT_QUERY_X_1 = "43" + "00000007" + "71756572793a78" + "56" + "00000001" + "31";
    private static final String JSON_BODY = "4a" + "00000007" + "7b2261223a317d";

    private static Fingerprint sha256OfInput(String hex) throws Exception {
        return Fingerprint.ofDigest(MessageDigest.getInstance("SHA-256").digest(HexFormat.of().parseHex(hex)));
    }

    private static String scheme(char version) {
        return "53" + "00000001" + HexFormat.of().toHexDigits((byte) version);
    }

    private static Fingerprint postOrders() {
        return Fingerprint.builder().method("POST").route("/orders").component("query:x", "1")
                .jsonBody("{ \"a\" : 1.0 }".getBytes(StandardCharsets.UTF_8)).build();
    }

    @Test
    void hashedInputStartsWithSchemeVersionOneThenTheRequestFields() throws Exception {
        Fingerprint expected = sha256OfInput(scheme('1') + METHOD_POST + ROUTE_ORDERS + COMPONENT_QUERY_X_1
                + JSON_BODY);

        assertThat(postOrders()).isEqualTo(expected);
        assertThat(Fingerprint.SCHEME_VERSION).isEqualTo(1);
    }

    @Test
    void theSameRequestUnderAnotherSchemeVersionOrWithoutOneHasAnotherDigest() throws Exception {
        Fingerprint version2 = sha256OfInput(scheme('2') + METHOD_POST + ROUTE_ORDERS + COMPONENT_QUERY_X_1
                + JSON_BODY);
        Fingerprint unversioned = sha256OfInput(METHOD_POST + ROUTE_ORDERS + COMPONENT_QUERY_X_1 + JSON_BODY);

        assertThat(postOrders()).isNotEqualTo(version2).isNotEqualTo(unversioned);
        assertThat(postOrders().matches(version2)).isFalse();
        assertThat(postOrders().matches(unversioned)).isFalse();
    }

    /**
     * An out-of-order root of large members is not rewritten: its members are hashed in sorted order where they
     * lie, without the excluded ones.
     */
    @Test
    void aRootObjectOutOfOrderIsHashedSortedWithoutItsExcludedMembers() throws Exception {
        String large = "x".repeat(300);
        String canonical = "{\"a\":\"" + large + "\",\"b\":[2,1],\"c\":{\"y\":2,\"z\":1}}";
        Fingerprint expected = sha256OfInput(scheme('1') + METHOD_POST + ROUTE_ORDERS + jsonBody(canonical));
        Fingerprint emptied = sha256OfInput(scheme('1') + METHOD_POST + ROUTE_ORDERS + jsonBody("{}"));

        assertThat(Fingerprint.builder().method("POST").route("/orders")
                .jsonBody(utf8("{\"t\": \"" + large + "\", \"c\": {\"z\": 1, \"y\": 2}, \"b\": [2, 1], \"a\": \""
                        + large + "\"}"), CanonicalJson.excluding(List.of("/t"))).build()).isEqualTo(expected);
        assertThat(Fingerprint.builder().method("POST").route("/orders")
                .jsonBody(utf8("{\"t\": \"" + large + "\", \"s\": \"" + large + "\"}"),
                        CanonicalJson.excluding(List.of("/t", "/s"))).build())
                .isEqualTo(emptied);
    }

    private static String jsonBody(String canonical) {
        return "4a" + HexFormat.of().toHexDigits(canonical.length()) + HexFormat.of().formatHex(utf8(canonical));
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void requestMatchesTheRecordOfItsOwnDigestOnly() {
        Fingerprint request = postOrders();
        Fingerprint recorded = Fingerprint.ofDigest(request.digest());
        Fingerprint other = Fingerprint.builder().method("POST").route("/orders").build();

        assertThat(request.matches(recorded)).isTrue();
        assertThat(request.matches(other)).isFalse();
    }
}
