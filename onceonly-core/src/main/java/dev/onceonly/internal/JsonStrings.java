package dev.onceonly.internal;

/** JSON string literals with the minimal escapes of RFC 8785: shared by canonical JSON and problem bodies. */
public final class JsonStrings {

    private JsonStrings() {
    }

    /** Appends {@code text} to {@code out} as a quoted JSON string. */
    public static StringBuilder quote(String text, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append("\\u00").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xF, 16));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"');
    }
}
