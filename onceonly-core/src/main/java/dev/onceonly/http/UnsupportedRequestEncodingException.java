package dev.onceonly.http;

import dev.onceonly.IdempotencyException;

/**
 * The body of a request to an idempotent endpoint is encoded in a way it cannot be fingerprinted as the handler
 * reads it: 415. The detail names the rule, never the value the client sent.
 */
public final class UnsupportedRequestEncodingException extends IdempotencyException {

    private final String problemType;

    private UnsupportedRequestEncodingException(String problemType, String message) {
        super(message, false);
        this.problemType = problemType;
    }

    /** A {@code Content-Encoding} other than {@code identity}, such as gzip. */
    public static UnsupportedRequestEncodingException ofContentEncoding() {
        return new UnsupportedRequestEncodingException("unsupported-content-encoding", "An idempotent endpoint "
                + "accepts only request bodies without a Content-Encoding; send the body uncompressed");
    }

    /** A {@code charset} parameter that names no charset this server supports. */
    public static UnsupportedRequestEncodingException ofCharset() {
        return new UnsupportedRequestEncodingException("unsupported-charset", "The charset the Content-Type "
                + "declares is not supported; send the body in UTF-8");
    }

    /** A multipart body on a reactive server, which has no parts of it that a retry's new boundary would keep. */
    public static UnsupportedRequestEncodingException ofMultipart() {
        return new UnsupportedRequestEncodingException("unsupported-multipart", "An idempotent WebFlux endpoint "
                + "does not accept multipart bodies; send the parts as JSON or form fields");
    }

    @Override
    public String problemType() {
        return problemType;
    }
}
