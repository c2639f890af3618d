package dev.onceonly.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IdempotentCallsTest {

    @Test
    void acceptsVisibleAsciiUpTo255Characters() {
        assertThat(IdempotentCalls.requireValidKey("a")).isEqualTo("a");
        assertThat(IdempotentCalls.requireValidKey("x".repeat(255))).hasSize(255);
        assertThat(IdempotentCalls.requireValidKey("pay:order-42/attempt_1!~")).isNotNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "two words", "tab\there", "caf\u00e9", "line\nbreak", "\u007f"})
    void refusesKeysThatAreEmptyOrHaveOtherCharacters(String key) {
        assertThatThrownBy(() -> IdempotentCalls.requireValidKey(key))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Idempotency-Key");
    }

    @Test
    void refusesKeysLongerThan255Characters() {
        assertThatThrownBy(() -> IdempotentCalls.requireValidKey("x".repeat(256)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("255");
    }

    @Test
    void refusesAMissingKey() {
        assertThatThrownBy(() -> IdempotentCalls.requireValidKey(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void keyHelperPutsTheKeyUnderTheAttribute() {
        Map<String, Object> attributes = new HashMap<>();

        IdempotentCalls.key("k-1").accept(attributes);

        assertThat(attributes).containsExactly(Map.entry(IdempotentCalls.KEY_ATTRIBUTE, "k-1"));
    }

    @Test
    void keyHelperValidatesAtOnce() {
        assertThatThrownBy(() -> IdempotentCalls.key("no spaces")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void postAndPatchGetAGeneratedKeyOtherMethodsNone() {
        assertThat(IdempotentCalls.resolveKey("POST", List.of(), null, () -> "generated")).isEqualTo("generated");
        assertThat(IdempotentCalls.resolveKey("PATCH", List.of(), null, () -> "generated")).isEqualTo("generated");
        for (String method : List.of("GET", "HEAD", "PUT", "DELETE", "OPTIONS")) {
            assertThat(IdempotentCalls.resolveKey(method, List.of(), null, () -> "generated")).isNull();
        }
    }

    @Test
    void explicitOrHeaderKeyWinsOverGeneration() {
        assertThat(IdempotentCalls.resolveKey("POST", List.of("in-header"), null, () -> "generated"))
                .isEqualTo("in-header");
        assertThat(IdempotentCalls.resolveKey("PUT", List.of(), "explicit", () -> "generated")).isEqualTo("explicit");
        assertThat(IdempotentCalls.resolveKey("POST", List.of("same"), "same", () -> "generated")).isEqualTo("same");
    }

    @Test
    void refusesDisagreeingOrRepeatedKeys() {
        assertThatThrownBy(() -> IdempotentCalls.resolveKey("POST", List.of("a"), "b", () -> "generated"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("differ");
        assertThatThrownBy(() -> IdempotentCalls.resolveKey("POST", List.of("a", "b"), null, () -> "generated"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most one");
        assertThatThrownBy(() -> IdempotentCalls.resolveKey("POST", List.of("bad key"), null, () -> "generated"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
