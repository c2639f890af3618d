package dev.onceonly.internal;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * The canonical text of a JSON number: the ECMAScript {@code Number.prototype.toString} form that RFC 8785
 * prescribes when a double holds the value exactly, else the exact decimal value.
 */
public final class JsonNumbers {

    private JsonNumbers() {
    }

    /** Returns the canonical text of {@code value}. */
    public static String canonical(BigDecimal value) {
        double asDouble = value.doubleValue();
        if (Double.isFinite(asDouble)) {
            String ecmaScript = ecmaScript(asDouble);
            if (new BigDecimal(ecmaScript).compareTo(value) == 0) {
                return ecmaScript;
            }
        }
        // A double would lose this value; its exact text keeps distinct numbers distinct.
        return value.stripTrailingZeros().toString();
    }

    /**
     * ECMA-262 Number::toString for a finite double. Java's {@link Double#toString(double)} yields the same
     * shortest digits (JDK 19+); only the layout differs.
     */
    static String ecmaScript(double value) {
        if (value == 0) {
            return "0";
        }
        String sign = value < 0 ? "-" : "";
        BigDecimal shortest = shortestDigits(Math.abs(value));
        String digits = shortest.unscaledValue().toString();
        int k = digits.length();
        int n = k - shortest.scale();
        if (k <= n && n <= 21) {
            return sign + digits + "0".repeat(n - k);
        }
        if (0 < n && n <= 21) {
            return sign + digits.substring(0, n) + "." + digits.substring(n);
        }
        if (-6 < n && n <= 0) {
            return sign + "0." + "0".repeat(-n) + digits;
        }
        int exponent = n - 1;
        String exponentText = (exponent >= 0 ? "e+" : "e-") + Math.abs(exponent);
        return k == 1 ? sign + digits + exponentText
                : sign + digits.charAt(0) + "." + digits.substring(1) + exponentText;
    }

    /**
     * The shortest decimal that reads back as {@code value}. Java prints at least two significant digits
     * ({@code 4.9E-324}) where ECMAScript may need one ({@code 5e-324}), so a one-digit candidate is tried too.
     */
    private static BigDecimal shortestDigits(double value) {
        BigDecimal java = new BigDecimal(Double.toString(value)).stripTrailingZeros();
        if (java.precision() == 2) {
            BigDecimal oneDigit = new BigDecimal(value).round(new MathContext(1, RoundingMode.HALF_EVEN));
            if (oneDigit.doubleValue() == value) {
                return oneDigit.stripTrailingZeros();
            }
        }
        return java;
    }
}
