package dev.onceonly.spring.boot.web;

import java.util.Locale;

/** Told how each request to an idempotent endpoint ended, for metrics. Implementations must be fast and thread-safe. */
@FunctionalInterface
public interface IdempotencyListener {

    /** How an idempotent request ended. */
    enum Outcome {
        /** The handler ran. */
        EXECUTED,
        /** A stored response was replayed. */
        REPLAYED,
        /** The first request was still running: 409. */
        IN_PROGRESS,
        /** The key was used for another request: 422 or 409. */
        KEY_REUSED,
        /** Missing or malformed key, malformed or oversized body: 400 or 413. */
        INVALID_REQUEST,
        /** The store was unreachable: 503, nothing ran. */
        STORE_UNAVAILABLE,
        /** The handler threw. */
        ERROR;

        /** The metric tag value, such as {@code in_progress}. */
        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    void onRequest(String operation, Outcome outcome);
}
