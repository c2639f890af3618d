package dev.onceonly.spring.web.internal;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonPointer;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.json.JsonFactory;

/**
 * Replaces the values at configured JSON Pointers in a body by {@code "[REDACTED]"}, on the token stream: every
 * other byte stays as the handler wrote it. A round trip through a tree would rewrite numbers ({@code 1.50e3}),
 * escapes and white space, so that a replay differed from the first answer beyond the redacted fields. Every
 * occurrence is redacted, also of a member name that appears twice. Immutable and thread-safe.
 */
public final class JsonRedaction {

    public static final String REDACTED = "[REDACTED]";

    private static final JsonFactory FACTORY = JsonFactory.builder().build();
    private static final byte[] REDACTED_VALUE = ("\"" + REDACTED + "\"").getBytes(StandardCharsets.UTF_8);

    /** The pointers in their string form: Jackson's pointers of one path need not be equal objects. */
    private final Set<String> fields;

    public JsonRedaction(List<String> pointers) {
        this.fields = pointers.stream().map(pointer -> JsonPointer.compile(pointer).toString())
                .collect(Collectors.toUnmodifiableSet());
    }

    public boolean isEmpty() {
        return fields.isEmpty();
    }

    /**
     * The body with the configured fields redacted; {@code json} itself when none occurs; {@code null} when it is
     * not well-formed JSON in UTF-8, so that its fields cannot be found.
     */
    public byte @Nullable [] redact(byte[] json) {
        List<long[]> values = new ArrayList<>();
        try (JsonParser parser = FACTORY.createParser(ObjectReadContext.empty(), json)) {
            for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
                if (token == JsonToken.PROPERTY_NAME || token.isStructEnd()
                        || !fields.contains(parser.streamReadContext().pathAsPointer().toString())) {
                    continue;
                }
                long start = parser.currentTokenLocation().getByteOffset();
                if (token.isStructStart()) {
                    parser.skipChildren();
                } else {
                    parser.finishToken();
                }
                long end = parser.currentLocation().getByteOffset();
                if (start < 0 || end < start) {
                    // No byte offsets: the parser decoded another encoding than UTF-8 (UTF-16, UTF-32).
                    return null;
                }
                values.add(new long[] {start, end});
            }
        } catch (JacksonException malformed) {
            return null;
        }
        return values.isEmpty() ? json : replaced(json, values);
    }

    private static byte[] replaced(byte[] json, List<long[]> values) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(json.length);
        int from = 0;
        for (long[] value : values) {
            out.write(json, from, (int) value[0] - from);
            out.writeBytes(REDACTED_VALUE);
            from = (int) value[1];
        }
        out.write(json, from, json.length - from);
        return out.toByteArray();
    }
}
