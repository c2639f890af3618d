package dev.onceonly.client;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/** Reads a {@code Retry-After} value (RFC 9110, 10.2.3): delay-seconds or an HTTP-date. */
final class RetryAfter {

    private RetryAfter() {
    }

    /**
     * The wait the server asks for, measured from {@code now}; a date in the past means no wait. Empty when the
     * value is neither form, so that the caller falls back to its own backoff rather than failing the call.
     */
    static Optional<Duration> parse(String value, Instant now) {
        String trimmed = value.trim();
        if (!trimmed.isEmpty() && trimmed.chars().allMatch(c -> c >= '0' && c <= '9')) {
            try {
                return Optional.of(Duration.ofSeconds(Long.parseLong(trimmed)));
            } catch (NumberFormatException tooLarge) {
                return Optional.of(Duration.ofSeconds(Long.MAX_VALUE));
            }
        }
        try {
            Instant at = ZonedDateTime.parse(trimmed, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            return Optional.of(at.isAfter(now) ? Duration.between(now, at) : Duration.ZERO);
        } catch (DateTimeParseException notADate) {
            return Optional.empty();
        }
    }
}
