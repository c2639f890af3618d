package dev.onceonly.internal;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The canonical text of a JSON number: the ECMAScript {@code Number.prototype.toString} form that RFC 8785
 * prescribes when a double holds the value exactly, else the exact decimal value.
 */
public final class JsonNumbers {

    /**
     * Bytes {@link #writeEcmaScript} may write beyond the digits: a sign and up to 20 zeros, or a sign, "0." and 5
     * zeros, or a sign, a point and an exponent.
     */
    public static final int MAX_LAYOUT_OVERHEAD = 24;

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
        BigDecimal shortest = shortestDigits(Math.abs(value));
        byte[] digits = shortest.unscaledValue().toString().getBytes(StandardCharsets.US_ASCII);
        byte[] text = new byte[digits.length + MAX_LAYOUT_OVERHEAD];
        int length = writeEcmaScript(value < 0, digits, digits.length, digits.length - shortest.scale(), text, 0);
        return new String(text, 0, length, StandardCharsets.US_ASCII);
    }

    /**
     * Writes the ECMA-262 Number::toString layout of the decimal 0.<i>d</i> &times; 10<sup>n</sup>, where
     * <i>d</i> is the first {@code k} ASCII digits of {@code digits}, with neither a leading nor a trailing zero
     * (ECMA-262's s, k and n). {@code out} must have {@code k + }{@value #MAX_LAYOUT_OVERHEAD} bytes free from
     * {@code at}, and {@code |n|} must be at most 998 (a three-digit exponent).
     *
     * @return the position after the last byte written
     */
    public static int writeEcmaScript(boolean negative, byte[] digits, int k, int n, byte[] out, int at) {
        int i = at;
        if (negative) {
            out[i++] = '-';
        }
        if (k <= n && n <= 21) {
            System.arraycopy(digits, 0, out, i, k);
            i += k;
            Arrays.fill(out, i, i + n - k, (byte) '0');
            return i + n - k;
        }
        if (0 < n && n <= 21) {
            System.arraycopy(digits, 0, out, i, n);
            out[i + n] = '.';
            System.arraycopy(digits, n, out, i + n + 1, k - n);
            return i + k + 1;
        }
        if (-6 < n && n <= 0) {
            out[i++] = '0';
            out[i++] = '.';
            Arrays.fill(out, i, i - n, (byte) '0');
            System.arraycopy(digits, 0, out, i - n, k);
            return i - n + k;
        }
        out[i++] = digits[0];
        if (k > 1) {
            out[i++] = '.';
            System.arraycopy(digits, 1, out, i, k - 1);
            i += k - 1;
        }
        out[i++] = 'e';
        out[i++] = (byte) (n - 1 >= 0 ? '+' : '-');
        int exponent = Math.abs(n - 1);
        if (exponent >= 100) {
            out[i++] = (byte) ('0' + exponent / 100);
        }
        if (exponent >= 10) {
            out[i++] = (byte) ('0' + exponent / 10 % 10);
        }
        out[i++] = (byte) ('0' + exponent % 10);
        return i;
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
