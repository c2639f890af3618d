package dev.onceonly.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.doubles;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class JsonNumbersTest {

    @Test
    void ecmaScriptFormReadsBackAsTheSameDouble() {
        qt().withExamples(5_000).forAll(doubles().any()).assuming(Double::isFinite).checkAssert(value ->
                assertThat(Double.parseDouble(JsonNumbers.ecmaScript(value))).isEqualTo(value == 0 ? 0.0 : value));
    }

    @Test
    void canonicalFormOfADoublesShortestDecimalIsItsEcmaScriptForm() {
        qt().withExamples(5_000).forAll(doubles().any()).assuming(Double::isFinite).checkAssert(value -> {
            String ecmaScript = JsonNumbers.ecmaScript(value);

            assertThat(JsonNumbers.canonical(new BigDecimal(ecmaScript))).isEqualTo(ecmaScript);
        });
    }

    @Test
    void layoutFollowsEcma262() {
        assertThat(JsonNumbers.ecmaScript(1e21)).isEqualTo("1e+21");
        assertThat(JsonNumbers.ecmaScript(1e20)).isEqualTo("100000000000000000000");
        assertThat(JsonNumbers.ecmaScript(123.456)).isEqualTo("123.456");
        assertThat(JsonNumbers.ecmaScript(0.000001)).isEqualTo("0.000001");
        assertThat(JsonNumbers.ecmaScript(1.5e-7)).isEqualTo("1.5e-7");
        assertThat(JsonNumbers.ecmaScript(-1.7976931348623157e308)).isEqualTo("-1.7976931348623157e+308");
        assertThat(JsonNumbers.ecmaScript(Double.MIN_VALUE)).isEqualTo("5e-324");
        assertThat(JsonNumbers.ecmaScript(-0.0)).isEqualTo("0");
    }
}
