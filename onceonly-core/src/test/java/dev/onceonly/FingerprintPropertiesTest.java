package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.ShrinkingMode;
import org.junit.jupiter.api.Test;

/**
 * Properties of fingerprints over random JSON documents. Each try is a seed; a failure reports it, and
 * {@code new Random(seed)} rebuilds the document (shrinking a seed would only pick another document).
 */
class FingerprintPropertiesTest {

    private static final int TRIES = 2_000;

    @Provide
    Arbitrary<Long> seeds() {
        return Arbitraries.longs().withDistribution(RandomDistribution.uniform());
    }

    private static Fingerprint fingerprint(String json) {
        return Fingerprint.builder().method("POST").route("/api/orders")
                .jsonBody(json.getBytes(StandardCharsets.UTF_8)).build();
    }

    @Property(tries = TRIES, shrinking = ShrinkingMode.OFF, edgeCases = EdgeCasesMode.NONE)
    void fingerprintIgnoresMemberOrderWhitespaceNumberFormsAndEscapes(@ForAll("seeds") long seed) {
        Random random = new Random(seed);
        Object value = RandomJson.value(random, 4);

        String one = RandomJson.spell(value, random);
        String other = RandomJson.spell(value, random);

        assertThat(fingerprint(other)).as("%s vs %s", one, other).isEqualTo(fingerprint(one));
    }

    @Property(tries = TRIES, shrinking = ShrinkingMode.OFF, edgeCases = EdgeCasesMode.NONE)
    void fingerprintChangesWhenAnyValueChanges(@ForAll("seeds") long seed) {
        Random random = new Random(seed);
        Object value = RandomJson.value(random, 4);
        Object changed = RandomJson.mutate(value, random);

        String original = RandomJson.spell(value, random);
        String mutated = RandomJson.spell(changed, random);

        assertThat(fingerprint(mutated)).as("%s vs %s", original, mutated).isNotEqualTo(fingerprint(original));
    }

    /**
     * A JSON body is hashed as its canonical form and that form's length, whether the root object is written in
     * place or read member by member in sorted order, with excluded members or without.
     */
    @Property(tries = TRIES, shrinking = ShrinkingMode.OFF, edgeCases = EdgeCasesMode.NONE)
    void aJsonBodyIsHashedAsItsCanonicalForm(@ForAll("seeds") long seed) throws Exception {
        Random random = new Random(seed);
        Map<String, Object> root = new LinkedHashMap<>();
        for (int i = random.nextInt(8); i >= 0; i--) {
            // a long string now and then, so that roots are read in place as well as rewritten
            root.put("m" + random.nextInt(100), random.nextBoolean() ? RandomJson.value(random, 2)
                    : "s".repeat(random.nextInt(400)));
        }
        List<String> excluded = new ArrayList<>();
        for (String name : root.keySet()) {
            if (random.nextInt(4) == 0) {
                excluded.add("/" + name);
            }
        }
        CanonicalJson canonicalJson = CanonicalJson.excluding(excluded);
        byte[] body = RandomJson.spell(root, random).getBytes(StandardCharsets.UTF_8);

        ByteArrayOutputStream input = new ByteArrayOutputStream();
        field(input, 'S', "1".getBytes(StandardCharsets.UTF_8));
        field(input, 'M', "POST".getBytes(StandardCharsets.UTF_8));
        field(input, 'R', "/api/orders".getBytes(StandardCharsets.UTF_8));
        field(input, 'J', canonicalJson.canonicalize(body));
        Fingerprint expected = Fingerprint.ofDigest(MessageDigest.getInstance("SHA-256").digest(input.toByteArray()));

        assertThat(Fingerprint.builder().method("POST").route("/api/orders").jsonBody(body, canonicalJson).build())
                .as("%s without %s", new String(body, StandardCharsets.UTF_8), excluded).isEqualTo(expected);
    }

    private static void field(ByteArrayOutputStream input, char tag, byte[] value) {
        input.write(tag);
        input.writeBytes(ByteBuffer.allocate(Integer.BYTES).putInt(value.length).array());
        input.writeBytes(value);
    }

    @Property(tries = TRIES, shrinking = ShrinkingMode.OFF, edgeCases = EdgeCasesMode.NONE)
    void canonicalFormIsAFixedPoint(@ForAll("seeds") long seed) {
        Random random = new Random(seed);
        byte[] once = CanonicalJson.standard().canonicalize(RandomJson.spell(RandomJson.value(random, 4), random)
                .getBytes(StandardCharsets.UTF_8));

        byte[] twice = CanonicalJson.standard().canonicalize(once);

        assertThat(Arrays.equals(once, twice)).isTrue();
    }

    @Test
    void methodRouteComponentsAndBodyAllCount() {
        Fingerprint base = Fingerprint.builder().method("POST").route("/a").component("query:x", "1")
                .jsonBody("{}".getBytes(StandardCharsets.UTF_8)).build();

        assertThat(Fingerprint.builder().method("PATCH").route("/a").component("query:x", "1")
                .jsonBody("{}".getBytes(StandardCharsets.UTF_8)).build()).isNotEqualTo(base);
        assertThat(Fingerprint.builder().method("POST").route("/b").component("query:x", "1")
                .jsonBody("{}".getBytes(StandardCharsets.UTF_8)).build()).isNotEqualTo(base);
        assertThat(Fingerprint.builder().method("POST").route("/a").component("query:x", "2")
                .jsonBody("{}".getBytes(StandardCharsets.UTF_8)).build()).isNotEqualTo(base);
        assertThat(Fingerprint.builder().method("POST").route("/a").component("query:x", "1")
                .jsonBody("[]".getBytes(StandardCharsets.UTF_8)).build()).isNotEqualTo(base);
        assertThat(Fingerprint.builder().method("POST").route("/a").component("query:x", "1")
                .rawBody("{}".getBytes(StandardCharsets.UTF_8)).build()).isNotEqualTo(base);
    }

    @Test
    void fieldBoundariesCannotBeShifted() {
        Fingerprint a = Fingerprint.builder().method("POST").route("/ab").build();
        Fingerprint b = Fingerprint.builder().method("POST/").route("ab").build();
        Fingerprint c = Fingerprint.builder().component("k", "v1").component("k", "v2").build();
        Fingerprint d = Fingerprint.builder().component("k", "v1v2").build();

        assertThat(a).isNotEqualTo(b);
        assertThat(c).isNotEqualTo(d);
    }

    @Test
    void componentNamesAreOrderFreeButValuesOfOneNameKeepTheirOrder() {
        Fingerprint ab = Fingerprint.builder().component("a", "1").component("b", "2").build();
        Fingerprint ba = Fingerprint.builder().component("b", "2").component("a", "1").build();
        Fingerprint values12 = Fingerprint.builder().component("a", "1").component("a", "2").build();
        Fingerprint values21 = Fingerprint.builder().component("a", "2").component("a", "1").build();

        assertThat(ab).isEqualTo(ba);
        assertThat(values12).isNotEqualTo(values21);
    }

    @Test
    void digestRoundTripsThroughItsBytes() {
        Fingerprint original = fingerprint("{\"a\":1}");

        assertThat(Fingerprint.ofDigest(original.digest())).isEqualTo(original);
        assertThat(original.hex()).hasSize(64);
    }
}
