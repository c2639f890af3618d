package dev.onceonly.spring.web.internal;

import dev.onceonly.StoredResponse;
import dev.onceonly.spring.web.ResponseSnapshots;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;

/** How a response becomes a stored one and how a stored one is written again, on any server. */
public final class StoredResponses {

    /**
     * Headers that describe a body: an error that replaces the body drops them, or they would be stored and
     * replayed with it (a gzip label on plain JSON, the Location of what was never created, read as the resource id).
     */
    public static final List<String> BODY_HEADERS = List.of(HttpHeaders.CONTENT_ENCODING,
            HttpHeaders.CONTENT_DISPOSITION, HttpHeaders.CONTENT_LANGUAGE, HttpHeaders.LOCATION, HttpHeaders.ETAG,
            HttpHeaders.LAST_MODIFIED);

    private StoredResponses() {
    }

    /**
     * The response as the handler left it, all of it, on any server: its content type, and of the headers it set
     * those {@code snapshots} replay.
     */
    static StoredResponse capture(ResponseSnapshots snapshots, IdempotencyProtocol.HeldResponse response) {
        String contentType = response.contentType();
        Map<String, List<String>> headers = new LinkedHashMap<>();
        if (contentType != null) {
            headers.put("Content-Type", List.of(contentType));
        }
        String location = null;
        for (Map.Entry<String, List<String>> header : new TreeMap<>(response.heldHeaders()).entrySet()) {
            String name = header.getKey();
            if (name.equalsIgnoreCase("Location") && !header.getValue().isEmpty()) {
                location = header.getValue().getFirst();
            }
            if (snapshots.replays(name) && !name.equalsIgnoreCase("Content-Type")) {
                headers.put(name, header.getValue());
            }
        }
        return StoredResponse.of(response.status(), headers, response.content(), resourceId(location));
    }

    /**
     * The last path segment of a {@code Location}, such as the id of a created order. Scanned by hand: it runs for
     * every response, and {@code String.replaceFirst} would compile its pattern each time.
     */
    static @Nullable String resourceId(@Nullable String location) {
        if (location == null || location.isBlank()) {
            return null;
        }
        int end = location.length();
        for (int i = 0; i < location.length(); i++) {
            char c = location.charAt(i);
            if (c == '?' || c == '#') {
                end = i;
                break;
            }
        }
        while (end > 0 && location.charAt(end - 1) == '/') {
            end--;
        }
        String id = location.substring(location.lastIndexOf('/', end - 1) + 1, end);
        return id.isEmpty() || id.length() > 255 ? null : id;
    }

    /**
     * Sets a stored response's headers as its replay has them, on any server: each replaces a header of the same
     * name, but {@code Vary}, whose values are added; and {@value ResponseSnapshots#REPLAYED_HEADER} marks it.
     */
    public static void replayHeaders(StoredResponse stored, BiConsumer<String, String> set,
            BiConsumer<String, String> add) {
        stored.headers().forEach((name, values) -> {
            // Vary lists what selected the answer: the first client got the values of filters before ours (CORS's
            // Origin) together with the handler's, so a replay adds the handler's to them rather than replacing.
            if (!name.equalsIgnoreCase(HttpHeaders.VARY)) {
                set.accept(name, values.getFirst());
                values.stream().skip(1).forEach(value -> add.accept(name, value));
            } else {
                values.forEach(value -> add.accept(name, value));
            }
        });
        set.accept(ResponseSnapshots.REPLAYED_HEADER, "true");
    }
}
