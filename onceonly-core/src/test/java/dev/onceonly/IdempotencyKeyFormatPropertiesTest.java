package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Properties of parsing {@code Idempotency-Key} header values, over random keys and random header values. */
class IdempotencyKeyFormatPropertiesTest {

    private static final String DEFAULT_RULE = "[A-Za-z0-9_-]{1,255}";
    private static final IdempotencyKeyFormat FORMAT = IdempotencyKeyFormat.DEFAULT;

    @Provide
    Arbitrary<String> defaultKeys() {
        return Arbitraries.strings().alpha().numeric().withChars("_-").ofMinLength(1).ofMaxLength(255);
    }

    /** Keys with one character the default rule forbids, somewhere inside (not where stripping removes it). */
    @Provide
    Arbitrary<String> keysWithAForbiddenCharacter() {
        // ASCII half of the time, so that each forbidden ASCII character comes up many times.
        Arbitrary<Character> forbidden = Arbitraries.oneOf(Arbitraries.chars().ascii(), Arbitraries.chars())
                .filter(c -> !String.valueOf(c).matches("[A-Za-z0-9_-]"));
        // Two characters at least, so that the forbidden one lands inside, where stripping cannot remove it.
        return Combinators.combine(defaultKeys().filter(key -> key.length() >= 2), forbidden,
                        Arbitraries.integers().between(1, 254))
                .as((key, c, at) -> {
                    int position = Math.min(at, key.length() - 1);
                    return key.substring(0, position) + c + key.substring(position);
                });
    }

    /** Any text, and text made of the characters that steer the parser. */
    @Provide
    Arbitrary<String> headerValues() {
        return Arbitraries.oneOf(Arbitraries.strings().ofMaxLength(140),
                Arbitraries.strings().withChars("aZ09_-\"\\,; \t\u00e9\u0000").ofMaxLength(140));
    }

    @Provide
    Arbitrary<String> printableKeys() {
        return Arbitraries.strings().withCharRange(' ', '~').ofMinLength(1).ofMaxLength(64);
    }

    @Property(tries = 2_000)
    void keysOfTheDefaultRuleParseToThemselvesBareQuotedAndWithParameters(@ForAll("defaultKeys") String key) {
        IdempotencyKey expected = new IdempotencyKey(key);

        assertThat(FORMAT.parse(key)).isEqualTo(expected);
        assertThat(FORMAT.parse(" \"" + key + "\" ")).isEqualTo(expected);
        assertThat(FORMAT.parse("\"" + key + "\";source=client")).isEqualTo(expected);
    }

    @Property(tries = 2_000)
    void keysWithAForbiddenCharacterAreRefused(@ForAll("keysWithAForbiddenCharacter") String value) {
        InvalidIdempotencyKeyException refused = catchThrowableOfType(InvalidIdempotencyKeyException.class,
                () -> FORMAT.parse(value));

        assertThat(refused).isNotNull();
        assertThat(refused.problemType()).isEqualTo("invalid-idempotency-key");
    }

    @Property(tries = 5_000)
    void everyHeaderValueGivesAKeyOfTheRuleOrAKeyProblemThatDoesNotEchoIt(@ForAll("headerValues") String value) {
        InvalidIdempotencyKeyException refused = catchThrowableOfType(InvalidIdempotencyKeyException.class,
                () -> FORMAT.parse(value));

        if (refused == null) {
            assertThat(FORMAT.parse(value).value()).matches(DEFAULT_RULE);
        } else {
            assertThat(refused.problemType()).isIn("missing-idempotency-key", "invalid-idempotency-key");
            if (value.strip().length() >= 16) {
                assertThat(refused.getMessage()).doesNotContain(value.strip());
            }
        }
    }

    @Property(tries = 2_000)
    void everyPrintableKeyRoundTripsThroughTheStructuredFieldStringForm(@ForAll("printableKeys") String key) {
        IdempotencyKeyFormat printable = IdempotencyKeyFormat.matching("[ -~]{1,64}");
        String serialized = "\"" + key.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";

        assertThat(printable.parse(serialized)).isEqualTo(new IdempotencyKey(key));
    }
}
