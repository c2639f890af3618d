package dev.onceonly.spring.web;

import dev.onceonly.OutcomeCodec;
import dev.onceonly.StoredResponse;
import dev.onceonly.spring.web.internal.JsonRedaction;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;

/**
 * What is kept of a response and how it is replayed. The first response reaches its client whole; what is stored
 * is its status, the allow-listed headers and the body, with configured secret fields redacted.
 */
public final class ResponseSnapshots {

    /** The header every replayed response carries. */
    public static final String REPLAYED_HEADER = "Idempotent-Replayed";
    /** Marks a replay whose body was too large, or unreadable for redaction, to be stored. */
    public static final String BODY_OMITTED_HEADER = "Idempotent-Body-Omitted";
    /**
     * Always stored and replayed; configured headers come in addition. The representation headers go with the
     * body, so that a replayed body reads as the first did (a gzip body without its {@code Content-Encoding}
     * would not).
     */
    static final List<String> DEFAULT_REPLAY_HEADERS = List.of("Content-Type", "Content-Encoding",
            "Content-Disposition", "Content-Language", "Vary", "Location", "ETag");

    /**
     * Headers that describe a body: an error that replaces the body drops them, or they would be stored and
     * replayed with it (a gzip label on plain JSON, the Location of what was never created, read as the resource id).
     */
    public static final List<String> BODY_HEADERS = List.of(HttpHeaders.CONTENT_ENCODING, HttpHeaders.CONTENT_DISPOSITION,
            HttpHeaders.CONTENT_LANGUAGE, HttpHeaders.LOCATION, HttpHeaders.ETAG, HttpHeaders.LAST_MODIFIED);

    private static final Logger log = LoggerFactory.getLogger(ResponseSnapshots.class);

    private final Set<String> replayHeaders = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
    private final JsonRedaction redaction;
    private final long maxBody;

    public ResponseSnapshots(List<String> replayHeaders, List<String> redactedFields, long maxBody) {
        this.replayHeaders.addAll(DEFAULT_REPLAY_HEADERS);
        this.replayHeaders.addAll(replayHeaders);
        this.redaction = new JsonRedaction(redactedFields);
        this.maxBody = maxBody;
    }


    /**
     * The response as the handler left it, all of it, on any server: its content type, and of the headers it set
     * those replayed.
     */
    public StoredResponse capture(int status, @Nullable String contentType, Map<String, List<String>> heldHeaders,
            byte[] body) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        if (contentType != null) {
            headers.put("Content-Type", List.of(contentType));
        }
        String location = null;
        for (Map.Entry<String, List<String>> header : new TreeMap<>(heldHeaders).entrySet()) {
            String name = header.getKey();
            if (name.equalsIgnoreCase("Location") && !header.getValue().isEmpty()) {
                location = header.getValue().getFirst();
            }
            if (replayHeaders.contains(name) && !name.equalsIgnoreCase("Content-Type")) {
                headers.put(name, header.getValue());
            }
        }
        return StoredResponse.of(status, headers, body, resourceId(location));
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

    /** Stores what {@link #capture} took, minus secrets; replays what was stored. */
    public OutcomeCodec<StoredResponse> codec(String operation) {
        return new OutcomeCodec<>() {
            @Override
            public StoredResponse encode(StoredResponse response) {
                byte[] body = redact(response);
                if (body == null || body.length > maxBody) {
                    log.warn("Response of operation '{}' is stored without its body: {}", operation, body == null
                            ? "it claims to be JSON but is not, so it cannot be searched for redacted fields"
                            : body.length + " bytes, more than onceonly.http.max-response-body");
                    Map<String, List<String>> headers = new LinkedHashMap<>(response.headers());
                    headers.remove("Content-Type");
                    headers.put(BODY_OMITTED_HEADER, List.of("true"));
                    return StoredResponse.of(response.status(), headers, new byte[0], response.resourceId());
                }
                return StoredResponse.of(response.status(), response.headers(), body, response.resourceId());
            }

            @Override
            public StoredResponse decode(StoredResponse stored) {
                return stored;
            }
        };
    }

    /** The body with redacted fields replaced, or {@code null} if it claims JSON but does not parse. */
    private byte @Nullable [] redact(StoredResponse response) {
        List<String> contentType = response.headers().getOrDefault("Content-Type", List.of());
        if (redaction.isEmpty() || contentType.isEmpty() || !isJson(contentType.getFirst())) {
            return response.body();
        }
        return redaction.redact(response.body());
    }

    /**
     * Any content type that mentions JSON, in any letter case ({@code application/JSON},
     * {@code application/problem+json}), also a malformed one: a body must not escape redaction by its label. A
     * body so labelled that is not JSON is stored without its body.
     */
    static boolean isJson(String contentType) {
        return contentType.toLowerCase(Locale.ROOT).contains("json");
    }

    /**
     * Sets a stored response's headers, on any server: each replaces a header of the same name, but {@code Vary},
     * whose values are added.
     */
    public static void replayHeaders(StoredResponse stored, BiConsumer<String, String> set, BiConsumer<String, String> add) {
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
    }
}
