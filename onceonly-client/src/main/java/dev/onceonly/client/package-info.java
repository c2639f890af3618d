/**
 * Calling idempotent HTTP APIs: one {@code Idempotency-Key} per logical call, kept across retries with jittered
 * backoff and a deadline, for the JDK {@link java.net.http.HttpClient} and Spring's {@code RestClient}.
 */
@NullMarked
package dev.onceonly.client;

import org.jspecify.annotations.NullMarked;
