package dev.onceonly.http;

import java.util.Locale;

/** How a request to an idempotent endpoint ended, as metrics count it. */
public enum RequestOutcome {
    /** The handler ran. */
    EXECUTED,
    /** A stored response was replayed. */
    REPLAYED,
    /** The first request was still running: 409. */
    IN_PROGRESS,
    /** The key was used for another request: 422 or 409. */
    KEY_REUSED,
    /** Missing or malformed key, malformed or oversized body, no usable owner: 400, 401, 403, 413 or 415. */
    INVALID_REQUEST,
    /** The store was unreachable, or no thread was free: 503, nothing ran. */
    STORE_UNAVAILABLE,
    /** The handler threw, or its result could not be kept. */
    ERROR;

    /** The metric tag value, such as {@code in_progress}. */
    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
