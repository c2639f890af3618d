package dev.onceonly.spring.web.internal;

import java.nio.charset.StandardCharsets;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.UriUtils;

/**
 * The path of a request within the application, in one spelling per path the handler can tell apart: each
 * segment decoded as Spring's handler mapping decodes it, then encoded again in full. So {@code /a%7Eb} and
 * {@code /a~b} are one path, while {@code /a%2Fb} (one segment) and {@code /a/b} (two) stay two.
 */
public final class ConcretePath {

    private ConcretePath() {
    }

    /** @param path the raw path within the application, as sent */
    public static String of(String path) {
        PathContainer elements;
        try {
            elements = PathContainer.parsePath(path);
        } catch (IllegalArgumentException undecodable) {
            // Canonical paths never start with '!', which they would encode: the raw path stays apart from them.
            return "!" + path;
        }
        StringBuilder canonical = new StringBuilder(path.length());
        for (PathContainer.Element element : elements.elements()) {
            if (element instanceof PathContainer.PathSegment segment) {
                canonical.append(encode(segment.valueToMatch()));
                // Matrix variables are inputs of the handler as much as the segment is.
                segment.parameters().forEach((name, values) -> values.forEach(value ->
                        canonical.append(';').append(encode(name)).append('=').append(encode(value))));
            } else {
                canonical.append('/');
            }
        }
        return canonical.toString();
    }

    private static String encode(String text) {
        return UriUtils.encode(text, StandardCharsets.UTF_8);
    }
}
