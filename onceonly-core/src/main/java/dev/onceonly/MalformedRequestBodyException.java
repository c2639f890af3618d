package dev.onceonly;

import org.jspecify.annotations.Nullable;

/**
 * A request body declared as JSON could not be parsed, so no fingerprint can be computed. The message says where
 * parsing failed, never what the body contained.
 */
public final class MalformedRequestBodyException extends IdempotencyException {

    private MalformedRequestBodyException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    /** A multipart body the container could not parse into parts. */
    public static MalformedRequestBodyException ofMultipart() {
        return new MalformedRequestBodyException("Request body is not valid multipart/form-data", null);
    }

    static MalformedRequestBodyException of(String reason, @Nullable Throwable cause) {
        return new MalformedRequestBodyException("Request body is not valid JSON: " + reason, cause);
    }

    @Override
    public String problemType() {
        return "malformed-request-body";
    }
}
