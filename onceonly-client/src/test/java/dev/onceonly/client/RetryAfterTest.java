package dev.onceonly.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

class RetryAfterTest {

    private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");

    @Test
    void readsDelaySeconds() {
        assertThat(RetryAfter.parse("120", NOW)).contains(Duration.ofSeconds(120));
        assertThat(RetryAfter.parse(" 0 ", NOW)).contains(Duration.ZERO);
    }

    @Test
    void readsAnHttpDateAsTheTimeUntilIt() {
        assertThat(RetryAfter.parse("Tue, 01 Dec 2026 10:01:30 GMT", NOW)).contains(Duration.ofSeconds(90));
    }

    @Test
    void dateInThePastMeansNoWait() {
        assertThat(RetryAfter.parse("Tue, 01 Dec 2026 09:00:00 GMT", NOW)).contains(Duration.ZERO);
    }

    @Test
    void hugeSecondsAreTreatedAsForever() {
        assertThat(RetryAfter.parse("99999999999999999999999", NOW)).contains(Duration.ofSeconds(Long.MAX_VALUE));
    }

    @Test
    void somethingElseIsNoHint() {
        assertThat(RetryAfter.parse("soon", NOW)).isEmpty();
        assertThat(RetryAfter.parse("-5", NOW)).isEmpty();
        assertThat(RetryAfter.parse("1.5", NOW)).isEmpty();
        assertThat(RetryAfter.parse("", NOW)).isEmpty();
    }
}
