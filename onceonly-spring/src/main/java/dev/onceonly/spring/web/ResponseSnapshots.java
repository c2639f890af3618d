package dev.onceonly.spring.web;

import dev.onceonly.OutcomeCodec;
import dev.onceonly.StoredResponse;
import dev.onceonly.spring.web.internal.JsonRedaction;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

    /** Whether header {@code name} is stored with a response and replayed, in any letter case. */
    public boolean replays(String name) {
        return replayHeaders.contains(name);
    }

    /** Stores what the transport captured, minus secrets; replays what was stored. */
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
}
