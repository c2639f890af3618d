package dev.onceonly.spring.web.internal;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The parameters of a request's query string, apart from form fields, which the servlet API mixes into the same
 * parameter map. Decoded as servlet containers decode them: UTF-8, {@code +} as a space.
 */
public final class QueryString {

    private QueryString() {
    }

    /** Decoded names to their values as sent (still encoded), in order. */
    public static Map<String, List<String>> parse(@Nullable String query) {
        Map<String, List<String>> parameters = new LinkedHashMap<>();
        if (query == null) {
            return parameters;
        }
        for (String pair : query.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int equals = pair.indexOf('=');
            String name = equals < 0 ? pair : pair.substring(0, equals);
            String decodedName = decode(name);
            parameters.computeIfAbsent(decodedName != null ? decodedName : name, ignored -> new ArrayList<>())
                    .add(equals < 0 ? "" : pair.substring(equals + 1));
        }
        return parameters;
    }

    /** The decoded text, or {@code null} if it is not valid percent-encoding. */
    public static @Nullable String decode(String encoded) {
        try {
            return URLDecoder.decode(encoded, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException malformed) {
            return null;
        }
    }
}
