package dev.onceonly.jdbc;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Stored response headers as text, one {@code name: value} line per value in replay order. Lossless because
 * {@link dev.onceonly.StoredResponse} admits no line breaks in values and no colons in names.
 */
final class HeaderLines {

    private HeaderLines() {
    }

    static @Nullable String encode(Map<String, List<String>> headers) {
        if (headers.isEmpty()) {
            return null;
        }
        StringBuilder text = new StringBuilder();
        headers.forEach((name, values) -> values.forEach(value -> text.append(name).append(": ").append(value)
                .append('\n')));
        return text.toString();
    }

    static Map<String, List<String>> decode(@Nullable String text) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        if (text == null) {
            return headers;
        }
        for (String line : text.split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            int colon = line.indexOf(": ");
            if (colon < 1) {
                throw new IllegalStateException("stored header line without a name");
            }
            headers.computeIfAbsent(line.substring(0, colon), ignored -> new ArrayList<>())
                    .add(line.substring(colon + 2));
        }
        return headers;
    }
}
