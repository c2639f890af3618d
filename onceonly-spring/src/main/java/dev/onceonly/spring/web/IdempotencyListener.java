package dev.onceonly.spring.web;

import dev.onceonly.http.RequestOutcome;

/** Told how each request to an idempotent endpoint ended, for metrics. Implementations must be fast and thread-safe. */
@FunctionalInterface
public interface IdempotencyListener {

    void onRequest(String operation, RequestOutcome outcome);
}
