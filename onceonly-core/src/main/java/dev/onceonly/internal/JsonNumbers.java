package dev.onceonly.internal;

import java.math.BigDecimal;

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
        BigDecimal shortest = new BigDecimal(Double.toString(Math.abs(value))).stripTrailingZeros();
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
}
