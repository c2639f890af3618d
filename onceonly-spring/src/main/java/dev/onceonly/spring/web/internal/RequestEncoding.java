package dev.onceonly.spring.web.internal;

import dev.onceonly.Fingerprint;
import dev.onceonly.http.UnsupportedRequestEncodingException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;

/**
 * How a request body is encoded, as far as its fingerprint depends on it: its media type, the charset it declares
 * and its content coding. A body is fingerprinted as the handler reads it, so a coded body (gzip, deflate, …) is
 * refused rather than hashed as compressed bytes, and so is a charset this server does not know.
 *
 * @param mediaType the parsed {@code Content-Type}, or {@code null} if there is none or it does not parse
 * @param unparsedContentType a {@code Content-Type} that does not parse, as sent
 * @param charset the charset the {@code Content-Type} declares
 */
public record RequestEncoding(@Nullable MediaType mediaType, @Nullable String unparsedContentType,
        @Nullable Charset charset) {

    /**
     * @throws UnsupportedRequestEncodingException if the body has a content coding or an unknown charset
     */
    /**
     * @param contentEncodings the request's {@code Content-Encoding} headers
     * @param contentType its {@code Content-Type}, if it has one
     * @throws UnsupportedRequestEncodingException if the body has a content coding or an unknown charset
     */
    public static RequestEncoding of(List<String> contentEncodings, @Nullable String contentType) {
        for (String codings : contentEncodings) {
            for (String coding : codings.split(",")) {
                if (!coding.isBlank() && !coding.strip().equalsIgnoreCase("identity")) {
                    throw UnsupportedRequestEncodingException.ofContentEncoding();
                }
            }
        }
        if (contentType == null) {
            return new RequestEncoding(null, null, null);
        }
        Charset charset = declaredCharset(contentType);
        try {
            return new RequestEncoding(MediaType.parseMediaType(contentType), null, charset);
        } catch (InvalidMediaTypeException unparsable) {
            return new RequestEncoding(null, contentType, charset);
        }
    }

    /** Parsed here rather than by {@link MediaType}, which gives no reason when it fails on the charset. */
    private static @Nullable Charset declaredCharset(String contentType) {
        String[] parameters = contentType.split(";");
        for (int i = 1; i < parameters.length; i++) {
            int equals = parameters[i].indexOf('=');
            if (equals > 0 && parameters[i].substring(0, equals).strip().equalsIgnoreCase("charset")) {
                String name = parameters[i].substring(equals + 1).strip().replaceAll("^\"|\"$", "");
                try {
                    return Charset.forName(name);
                } catch (IllegalArgumentException unknown) {
                    throw UnsupportedRequestEncodingException.ofCharset();
                }
            }
        }
        return null;
    }

    /** Adds the content type and its charset (by canonical name, so {@code utf8} is {@code UTF-8}). */
    public void addTo(Fingerprint.Builder fingerprint) {
        if (mediaType != null) {
            fingerprint.component("content-type", mediaType.getType() + "/" + mediaType.getSubtype());
        } else if (unparsedContentType != null) {
            fingerprint.component("content-type-unparsed", unparsedContentType);
        }
        if (charset != null) {
            fingerprint.component("charset", charset.name());
        }
    }

    public boolean isJson() {
        return mediaType != null && (MediaType.APPLICATION_JSON.isCompatibleWith(mediaType)
                || mediaType.getSubtype().endsWith("+json"));
    }

    public boolean isMultipart() {
        return mediaType != null && MediaType.MULTIPART_FORM_DATA.isCompatibleWith(mediaType);
    }

    public boolean isForm() {
        return mediaType != null && MediaType.APPLICATION_FORM_URLENCODED.isCompatibleWith(mediaType);
    }

    /**
     * A JSON body as UTF-8, the encoding canonicalisation reads: decoded by its declared charset first, as Spring's
     * JSON converters decode it (malformed input becomes U+FFFD for them too).
     */
    public byte[] jsonInUtf8(byte[] body) {
        if (charset == null || charset.equals(StandardCharsets.UTF_8)) {
            return body;
        }
        return new String(body, charset).getBytes(StandardCharsets.UTF_8);
    }
}
