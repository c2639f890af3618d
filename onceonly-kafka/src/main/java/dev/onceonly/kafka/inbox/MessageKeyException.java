package dev.onceonly.kafka.inbox;

/**
 * A record has no usable message key (no event id, no business key, or one that is empty, longer than 255
 * characters or holds a control character): it is refused before anything runs. Retrying cannot help, so the
 * starter marks it not retryable on the application's {@code DefaultErrorHandler}, which then hands the record to
 * its recoverer (a dead-letter topic) at once. The message names where the key was looked for, never its value.
 */
public final class MessageKeyException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public MessageKeyException(String message) {
        super(message);
    }
}
