package dev.onceonly;

/**
 * A request body declared as JSON could not be parsed, so no fingerprint can be computed. The message says where
 * parsing failed, never what the body contained.
 */
public final class MalformedRequestBodyException extends IdempotencyException {

    private MalformedRequestBodyException(String message, Throwable cause) {
        super(message, cause);
    }

    static MalformedRequestBodyException of(String reason, Throwable cause) {
        return new MalformedRequestBodyException("Request body is not valid JSON: " + reason, cause);
    }

    @Override
    public String problemType() {
        return "malformed-request-body";
    }
}
