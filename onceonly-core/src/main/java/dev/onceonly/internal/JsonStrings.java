package dev.onceonly.internal;

import org.jspecify.annotations.Nullable;

/** JSON string literals with the minimal escapes of RFC 8785: shared by canonical JSON and problem bodies. */
public final class JsonStrings {

    private JsonStrings() {
    }

    /** Appends {@code text} to {@code out} as a quoted JSON string. */
    public static StringBuilder quote(String text, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            String escape = escape(c);
            if (escape == null) {
                out.append(c);
            } else {
                out.append(escape);
            }
        }
        return out.append('"');
    }

    /**
     * The escape sequence RFC 8785 writes for {@code c}: quotation mark, reverse solidus and the control
     * characters, the latter by their short names where JSON has one, else as {@code \}{@code u00xx} in lowercase.
     *
     * @return the escape, or {@code null} if {@code c} stands for itself
     */
    public static @Nullable String escape(int c) {
        return switch (c) {
            case '"' -> "\\\"";
            case '\\' -> "\\\\";
            case '\b' -> "\\b";
            case '\f' -> "\\f";
            case '\n' -> "\\n";
            case '\r' -> "\\r";
            case '\t' -> "\\t";
            default -> c < 0x20 ? "\\u00" + Character.forDigit(c >> 4, 16) + Character.forDigit(c & 0xF, 16) : null;
        };
    }
}
