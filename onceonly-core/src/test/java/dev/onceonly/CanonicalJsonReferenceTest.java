package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashSet;
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
import org.jspecify.annotations.Nullable;

/**
 * {@link CanonicalJson} against {@link ReferenceCanonicalJson}, the scheme-1 canonicalisation every stored
 * fingerprint was made by: the same bytes out for every document, the same documents refused. Each try is a seed
 * ({@code new Random(seed)} rebuilds its document).
 */
class CanonicalJsonReferenceTest {

    private static final int TRIES = 3_000;
    /** Objects of more members than this are sorted another way. */
    private static final int INSERTION_SORT_LIMIT = 16;
    /** Bytes an edit puts into a document: JSON's own, and a few that are wrong anywhere. */
    private static final byte[] EDIT_BYTES = "{}[],:\"\\/ \n0123456789-+.eEtfnulrsabu\u0001x~".getBytes(
            StandardCharsets.ISO_8859_1);

    @Provide
    Arbitrary<Long> seeds() {
        return Arbitraries.longs().withDistribution(RandomDistribution.uniform());
    }

    @Property(tries = TRIES, shrinking = ShrinkingMode.OFF, edgeCases = EdgeCasesMode.NONE)
    void everySpellingOfEveryDocumentCanonicalisesAsTheReferenceDoes(@ForAll("seeds") long seed) {
        Random random = new Random(seed);

        byte[] json = utf8(RandomJson.spell(RandomJson.value(random, 5), random));

        assertSameOutcome(CanonicalJson.standard(), ReferenceCanonicalJson.standard(), json);
    }

    /**
     * Arrays of objects that share their names, in one order or several, sometimes with a name twice: where the
     * pass reuses the order it sorted the previous element's names into.
     */
    @Property(tries = TRIES, shrinking = ShrinkingMode.OFF, edgeCases = EdgeCasesMode.NONE)
    void objectsSharingTheirNamesCanonicaliseAsInTheReference(@ForAll("seeds") long seed) {
        Random random = new Random(seed);
        List<String> names = new ArrayList<>();
        for (int i = 1 + random.nextInt(INSERTION_SORT_LIMIT + 4); i > 0; i--) {
            names.add(List.of("a", "b", "ab", "B", "\\u00e9", "\\ud83d\\ude00", "\\uffff", "x\\ny").get(random.nextInt(8))
                    + random.nextInt(3));
        }
        StringBuilder json = new StringBuilder("[");
        for (int element = random.nextInt(6); element >= 0; element--) {
            List<String> order = new ArrayList<>(new LinkedHashSet<>(names));
            if (random.nextInt(3) == 0) {
                Collections.shuffle(order, random);
            }
            if (random.nextInt(8) == 0) {
                order.add(order.get(random.nextInt(order.size())));
            }
            json.append('{');
            for (int i = 0; i < order.size(); i++) {
                json.append(i == 0 ? "" : ",").append('"').append(order.get(i)).append("\":").append(i);
            }
            json.append(element == 0 ? "}" : "},");
        }
        json.append(']');

        assertSameOutcome(CanonicalJson.standard(), ReferenceCanonicalJson.standard(), utf8(json.toString()));
    }

    /**
     * Names, strings and numbers of every length up to three words, at every offset from the document's end, in
     * arrays of objects that share their names: where the pass reads, compares and copies eight bytes at a time,
     * and falls back to single bytes near the end. Some documents are then cut or edited.
     */
    @Property(tries = TRIES, shrinking = ShrinkingMode.OFF, edgeCases = EdgeCasesMode.NONE)
    void tokensOfEveryWordLengthCanonicaliseAsInTheReference(@ForAll("seeds") long seed) {
        Random random = new Random(seed);
        List<String> names = new ArrayList<>();
        for (int i = 1 + random.nextInt(5); i > 0; i--) {
            names.add(wordLengthText(random));
        }
        StringBuilder json = new StringBuilder("[");
        for (int element = random.nextInt(5); element >= 0; element--) {
            List<String> order = new ArrayList<>(new LinkedHashSet<>(names));
            if (random.nextInt(4) == 0) {
                Collections.shuffle(order, random);
            }
            json.append('{');
            for (int i = 0; i < order.size(); i++) {
                json.append(i == 0 ? "" : ",").append('"').append(order.get(i)).append('"')
                        .append(random.nextInt(8) == 0 ? " :" : ":").append(random.nextInt(3) == 0 ? " " : "")
                        .append(random.nextBoolean() ? numberLiteral(random) : '"' + wordLengthText(random) + '"');
            }
            json.append(element == 0 ? "}" : "},");
        }
        json.append(']');
        int wrapping = random.nextInt(4) == 0 ? 60 + random.nextInt(10) : 0; // shapes beyond depth 64 too
        String document = "[".repeat(wrapping) + json + "]".repeat(wrapping)
                + " ".repeat(random.nextInt(3 * Long.BYTES));
        byte[] bytes = utf8(document);
        if (random.nextInt(4) == 0) {
            bytes = edit(bytes, random);
        }

        assertSameOutcome(CanonicalJson.standard(), ReferenceCanonicalJson.standard(), bytes);
    }

    /**
     * Two arrays of objects that share their names, at the same depth: members and elements excluded in one, whose
     * paths the pass tracks, none in the other, whose objects it sorts by their shape.
     */
    @Property(tries = TRIES, shrinking = ShrinkingMode.OFF, edgeCases = EdgeCasesMode.NONE)
    void objectsBesideExcludedOnesCanonicaliseAsInTheReference(@ForAll("seeds") long seed) {
        Random random = new Random(seed);
        String plain = wordLengthText(random).replaceAll("[\\\\\"\\x00-\\x1f]", ""); // names without escapes
        List<String> names = new ArrayList<>(new LinkedHashSet<>(List.of(plain, "b", "a" + random.nextInt(3),
                "c" + random.nextInt(3))));
        List<String> excluded = new ArrayList<>();
        StringBuilder json = new StringBuilder("{");
        for (String array : List.of("k", "m")) {
            json.append(array.equals("k") ? "" : ",").append('"').append(array).append("\":[");
            for (int element = 0, elements = 1 + random.nextInt(4); element < elements; element++) {
                List<String> order = new ArrayList<>(names);
                switch (random.nextInt(3)) {
                    case 0 -> Collections.shuffle(order, random);
                    case 1 -> order.sort(null); // in order: no rewrite unless something is excluded
                    default -> {
                        // as they came
                    }
                }
                json.append(element == 0 ? "{" : ",{");
                for (int i = 0; i < order.size(); i++) {
                    json.append(i == 0 ? "" : ",").append('"').append(order.get(i)).append("\":").append(i);
                }
                json.append('}');
                if (array.equals("k") && random.nextBoolean()) {
                    excluded.add("/k/" + element + (random.nextBoolean() ? ""
                            : "/" + order.get(random.nextInt(order.size())).replace("~", "~0").replace("/", "~1")));
                }
            }
            json.append(']');
        }
        json.append('}');

        assertSameOutcome(CanonicalJson.excluding(excluded), ReferenceCanonicalJson.excluding(excluded),
                utf8(json.toString()));
    }

    /** Up to 24 bytes of plain text, sometimes with an escape, a control or a non-ASCII character somewhere. */
    private static String wordLengthText(Random random) {
        StringBuilder text = new StringBuilder();
        for (int i = random.nextInt(3 * Long.BYTES + 1); i > 0; i--) {
            text.append((char) ('a' + random.nextInt(3)));
        }
        if (random.nextBoolean()) {
            String special = List.of("\\\"", "\\\\", "\\n", "\\u0041", "\u00e9", "\u20ac", "\ud83d\ude00", "\u0001")
                    .get(random.nextInt(8));
            text.insert(random.nextInt(text.length() + 1), special);
        }
        return text.toString();
    }

    @Property(tries = TRIES, shrinking = ShrinkingMode.OFF, edgeCases = EdgeCasesMode.NONE)
    void excludedMembersAndElementsGoAsInTheReference(@ForAll("seeds") long seed) {
        Random random = new Random(seed);
        Object value = RandomJson.value(random, 5);
        List<String> paths = new ArrayList<>();
        collectPaths(value, "", paths);
        List<String> excluded = new ArrayList<>(List.of("/absent"));
        for (int i = random.nextInt(3); i > 0 && !paths.isEmpty(); i--) {
            excluded.add(paths.get(random.nextInt(paths.size())));
        }

        assertSameOutcome(CanonicalJson.excluding(excluded), ReferenceCanonicalJson.excluding(excluded),
                utf8(RandomJson.spell(value, random)));
    }

    @Property(tries = TRIES, shrinking = ShrinkingMode.OFF, edgeCases = EdgeCasesMode.NONE)
    void editedDocumentsAreRefusedOrAcceptedAsByTheReference(@ForAll("seeds") long seed) {
        Random random = new Random(seed);
        byte[] json = utf8(RandomJson.spell(RandomJson.value(random, 3), random));

        for (int edits = 1 + random.nextInt(3); edits > 0 && json.length > 0; edits--) {
            json = edit(json, random);
        }

        assertSameOutcome(CanonicalJson.standard(), ReferenceCanonicalJson.standard(), json);
    }

    @Property(tries = 20_000, shrinking = ShrinkingMode.OFF, edgeCases = EdgeCasesMode.NONE)
    void everyNumberSpellingCanonicalisesAsInTheReference(@ForAll("seeds") long seed) {
        Random random = new Random(seed);

        String number = numberLiteral(random);

        assertSameOutcome(CanonicalJson.standard(), ReferenceCanonicalJson.standard(), utf8("[" + number + "]"));
    }

    private static void assertSameOutcome(CanonicalJson canonicalJson, ReferenceCanonicalJson reference,
            byte[] json) {
        String expected = outcome(() -> reference.canonicalize(json));
        String actual = outcome(() -> canonicalJson.canonicalize(json));
        assertThat(actual).as("%s (hex %s)", new String(json, StandardCharsets.UTF_8),
                HexFormat.of().formatHex(json)).isEqualTo(expected);
    }

    /** The canonical text, or that the document was refused: messages and positions may differ. */
    private static String outcome(Canonicalisation canonicalisation) {
        try {
            return new String(canonicalisation.run(), StandardCharsets.UTF_8);
        } catch (MalformedRequestBodyException e) {
            return "refused";
        }
    }

    private interface Canonicalisation {
        byte[] run();
    }

    private static byte[] edit(byte[] json, Random random) {
        int at = random.nextInt(json.length);
        byte inserted = EDIT_BYTES[random.nextInt(EDIT_BYTES.length)];
        return switch (random.nextInt(4)) {
            case 0 -> concat(Arrays.copyOf(json, at), Arrays.copyOfRange(json, at + 1, json.length));
            case 1 -> concat(Arrays.copyOf(json, at), new byte[] {inserted}, Arrays.copyOfRange(json, at,
                    json.length));
            case 2 -> {
                byte[] replaced = json.clone();
                replaced[at] = inserted;
                yield replaced;
            }
            default -> Arrays.copyOf(json, at);
        };
    }

    private static byte[] concat(byte[]... parts) {
        byte[] all = new byte[Arrays.stream(parts).mapToInt(part -> part.length).sum()];
        int at = 0;
        for (byte[] part : parts) {
            System.arraycopy(part, 0, all, at, part.length);
            at += part.length;
        }
        return all;
    }

    /**
     * A number literal, usually valid: up to 25 digits around an optional point, leading and trailing zeros, and
     * exponents near where the layout changes (21, -6), where doubles stop being exact (±300) and beyond.
     */
    private static String numberLiteral(Random random) {
        StringBuilder literal = new StringBuilder(random.nextInt(3) == 0 ? "-" : "");
        literal.append(random.nextInt(4) == 0 ? "0" : digits(random, 1 + random.nextInt(20), true));
        if (random.nextBoolean()) {
            literal.append('.').append("0".repeat(random.nextInt(3))).append(digits(random, 1 + random.nextInt(20),
                    false)).append("0".repeat(random.nextInt(3)));
        }
        if (random.nextBoolean()) {
            int[] near = {0, 21, -6, 300, -300, 308, -324, 400};
            int exponent = near[random.nextInt(near.length)] + random.nextInt(21) - 10;
            literal.append(random.nextBoolean() ? 'e' : 'E').append(exponent >= 0 && random.nextBoolean() ? "+" : "")
                    .append(exponent);
        }
        return literal.toString();
    }

    private static String digits(Random random, int count, boolean first) {
        StringBuilder digits = new StringBuilder();
        for (int i = 0; i < count; i++) {
            digits.append((char) ((first && i == 0 ? '1' : '0') + random.nextInt(first && i == 0 ? 9 : 10)));
        }
        return digits.toString();
    }

    private static void collectPaths(@Nullable Object value, String path, List<String> paths) {
        if (value instanceof Map<?, ?> members) {
            members.forEach((name, member) -> {
                String memberPath = path + "/" + ((String) name).replace("~", "~0").replace("/", "~1");
                paths.add(memberPath);
                collectPaths(member, memberPath, paths);
            });
        } else if (value instanceof List<?> elements) {
            for (int i = 0; i < elements.size(); i++) {
                paths.add(path + "/" + i);
                collectPaths(elements.get(i), path + "/" + i, paths);
            }
        }
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
