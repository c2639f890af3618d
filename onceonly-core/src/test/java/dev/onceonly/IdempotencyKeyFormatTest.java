package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.InvalidIdempotencyKeyException.Violation;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IdempotencyKeyFormatTest {

    private static final String KEY = "01JZ6Q4X7M9K8P2A6T3B5C1D0E";
    private final IdempotencyKeyFormat format = IdempotencyKeyFormat.DEFAULT;

    @Test
    void bareTokenIsAccepted() {
        assertThat(format.parse(KEY)).isEqualTo(new IdempotencyKey(KEY));
    }

    @Test
    void structuredFieldStringIsAcceptedWithoutItsQuotes() {
        assertThat(format.parse("\"" + KEY + "\"")).isEqualTo(new IdempotencyKey(KEY));
    }

    @Test
    void surroundingWhitespaceAndStructuredFieldParametersAreIgnored() {
        assertThat(format.parse("  \"" + KEY + "\";source=client ")).isEqualTo(new IdempotencyKey(KEY));
    }

    @Test
    void escapedCharactersAreUnescapedThenValidated() {
        IdempotencyKeyFormat anything = IdempotencyKeyFormat.matching("[ -~]{1,64}");

        assertThat(anything.parse("\"a\\\"b\\\\c\"")).isEqualTo(new IdempotencyKey("a\"b\\c"));
        assertThatThrownBy(() -> format.parse("\"" + KEY + "\\\"\"")).isInstanceOfSatisfying(
                InvalidIdempotencyKeyException.class,
                e -> assertThat(e.violation()).isEqualTo(Violation.ILLEGAL_CHARACTER));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "\"unterminated0123456789          | MALFORMED_STRING",
        "\"bad\\escape0123456789\"         | MALFORMED_STRING",
        "\"0123456789abcdef\"trailing      | MALFORMED_STRING",
        "0123456789abcdef,0123456789abcdef | MULTIPLE_VALUES",
        "\"0123456789abcdef\", \"0123456789abcdef\" | MULTIPLE_VALUES",
        "0123456789abcdef!                 | ILLEGAL_CHARACTER",
        "0123456789 abcdef                 | ILLEGAL_CHARACTER",
        "0123456789abcdéf                  | ILLEGAL_CHARACTER"
    })
    void malformedValuesNameTheRuleTheyBreak(String value, Violation violation) {
        assertThatThrownBy(() -> format.parse(value))
                .isInstanceOfSatisfying(InvalidIdempotencyKeyException.class, e -> {
                    assertThat(e.violation()).isEqualTo(violation);
                    assertThat(e.problemType()).isEqualTo("invalid-idempotency-key");
                });
    }

    @Test
    void tooLongKeyNamesTheLimit() {
        assertThatThrownBy(() -> format.parse("a".repeat(256)))
                .isInstanceOfSatisfying(InvalidIdempotencyKeyException.class,
                        e -> assertThat(e.violation()).isEqualTo(Violation.TOO_LONG))
                .hasMessageContaining("256").hasMessageContaining("at most 255");
    }

    /** The default takes what clients send (any length to Stripe's 255); a stricter rule is configured. */
    @Test
    void aConfiguredMinimumRefusesShorterKeys() {
        assertThatThrownBy(() -> IdempotencyKeyFormat.lengthBetween(16, 255).parse("short"))
                .isInstanceOfSatisfying(InvalidIdempotencyKeyException.class,
                        e -> assertThat(e.violation()).isEqualTo(Violation.TOO_SHORT));
    }

    @Test
    void boundariesOfTheDefaultLengthAreAccepted() {
        assertThat(format.parse("a").value()).hasSize(1);
        assertThat(format.parse("a".repeat(255)).value()).hasSize(255);
        assertThat(format.parse("8e03978e-40d5-43e8-bc93-6894a57f9324").value()).hasSize(36);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "\t"})
    void blankValueIsMissing(String value) {
        assertThatThrownBy(() -> format.parse(value))
                .isInstanceOfSatisfying(InvalidIdempotencyKeyException.class, e -> {
                    assertThat(e.violation()).isEqualTo(Violation.MISSING);
                    assertThat(e.problemType()).isEqualTo("missing-idempotency-key");
                });
    }

    @Test
    void headerWithoutValuesIsMissingAndSeveralFieldsAreMultipleValues() {
        assertThatThrownBy(() -> format.parseHeader(List.of()))
                .isInstanceOfSatisfying(InvalidIdempotencyKeyException.class,
                        e -> assertThat(e.violation()).isEqualTo(Violation.MISSING));
        assertThatThrownBy(() -> format.parseHeader(List.of(KEY, KEY)))
                .isInstanceOfSatisfying(InvalidIdempotencyKeyException.class,
                        e -> assertThat(e.violation()).isEqualTo(Violation.MULTIPLE_VALUES));
        assertThat(format.parseHeader(List.of(KEY))).isEqualTo(new IdempotencyKey(KEY));
    }

    @Test
    void customPatternIsApplied() {
        IdempotencyKeyFormat uuids = IdempotencyKeyFormat.matching(
                "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

        assertThat(uuids.parse("123e4567-e89b-12d3-a456-426614174000").value())
                .isEqualTo("123e4567-e89b-12d3-a456-426614174000");
        assertThatThrownBy(() -> uuids.parse(KEY))
                .isInstanceOfSatisfying(InvalidIdempotencyKeyException.class,
                        e -> assertThat(e.violation()).isEqualTo(Violation.PATTERN_MISMATCH));
    }

    @Test
    void impossibleFormatsFailAtConfiguration() {
        assertThatThrownBy(() -> IdempotencyKeyFormat.lengthBetween(0, 10))
                .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("key length");
        assertThatThrownBy(() -> IdempotencyKeyFormat.lengthBetween(20, 10))
                .isInstanceOf(IdempotencyConfigurationException.class);
        assertThatThrownBy(() -> IdempotencyKeyFormat.lengthBetween(16, 256))
                .isInstanceOf(IdempotencyConfigurationException.class);
        assertThatThrownBy(() -> IdempotencyKeyFormat.matching("[unclosed"))
                .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("key pattern");
    }

    @Test
    void keysAreValidatedEvenWhenConstructedDirectly() {
        assertThatThrownBy(() -> new IdempotencyKey("")).isInstanceOf(InvalidIdempotencyKeyException.class);
        assertThatThrownBy(() -> new IdempotencyKey("a".repeat(256)))
                .isInstanceOfSatisfying(InvalidIdempotencyKeyException.class,
                        e -> assertThat(e.violation()).isEqualTo(Violation.TOO_LONG));
        assertThatThrownBy(() -> new IdempotencyKey("abc\r\nInjected: log line"))
                .isInstanceOfSatisfying(InvalidIdempotencyKeyException.class,
                        e -> assertThat(e.violation()).isEqualTo(Violation.ILLEGAL_CHARACTER));
    }

    @Test
    void errorMessagesNeverEchoTheKey() {
        String secretLooking = "sk_live_0123456789!";

        assertThatThrownBy(() -> format.parse(secretLooking)).message().doesNotContain("sk_live");
    }
}
