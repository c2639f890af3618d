package dev.onceonly.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import org.junit.jupiter.api.Test;

class JsonNumbersTest {

    /**
     * Every finite double, drawn from its bit pattern so that all exponents and all 52 fraction bits occur as
     * often as they do among doubles, plus the edge cases of the bits (zero, negative zero, the smallest
     * subnormal).
     */
    @Provide
    Arbitrary<Double> finiteDoubles() {
        return Arbitraries.longs().withDistribution(RandomDistribution.uniform()).map(Double::longBitsToDouble)
                .filter(Double::isFinite);
    }

    @Property(tries = 5_000)
    void ecmaScriptFormReadsBackAsTheSameDouble(@ForAll("finiteDoubles") double value) {
        assertThat(Double.parseDouble(JsonNumbers.ecmaScript(value))).isEqualTo(value == 0 ? 0.0 : value);
    }

    @Property(tries = 5_000)
    void canonicalFormOfADoublesShortestDecimalIsItsEcmaScriptForm(@ForAll("finiteDoubles") double value) {
        String ecmaScript = JsonNumbers.ecmaScript(value);

        assertThat(JsonNumbers.canonical(new BigDecimal(ecmaScript))).isEqualTo(ecmaScript);
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
