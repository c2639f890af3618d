package dev.onceonly.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RetryPolicyTest {

    private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");
    private static final Duration PLENTY = Duration.ofMinutes(1);

    private final ClientRetryPolicy policy = ClientRetryPolicy.builder().initialBackoff(Duration.ofMillis(100))
            .multiplier(2).maxBackoff(Duration.ofSeconds(1)).maxAttempts(4).build();

    private RetryDecision decide(CallKind kind, int attemptsMade, AttemptOutcome outcome, Duration remaining) {
        return policy.decide(kind, attemptsMade, outcome, remaining, NOW);
    }

    private static AttemptOutcome status(int status) {
        return new AttemptOutcome.Answered(status, null, false);
    }

    @ParameterizedTest
    @ValueSource(ints = {429, 500, 502, 503, 504})
    void keyedCallIsRetriedOnTransientAnswers(int status) {
        assertThat(decide(CallKind.KEYED, 1, status(status), PLENTY)).isInstanceOf(RetryDecision.Retry.class);
    }

    @Test
    void keyedCallIsRetriedWhileItsFirstRequestIsInProgress() {
        assertThat(decide(CallKind.KEYED, 1, new AttemptOutcome.Answered(409, "1", false), PLENTY))
                .isInstanceOf(RetryDecision.Retry.class);
    }

    // issue 39: every 409 of a keyed call was retried, also the stored business answer of its first request.
    @Test
    void conflictThatIsTheFirstRequestsBusinessAnswerIsFinal() {
        assertThat(decide(CallKind.KEYED, 1, new AttemptOutcome.Answered(409, null, false), PLENTY))
                .as("a 409 without Retry-After, such as form-token-used")
                .isEqualTo(new RetryDecision.Stop(RetryDecision.Reason.FINAL));
        assertThat(decide(CallKind.KEYED, 1, new AttemptOutcome.Answered(409, "1", true), PLENTY))
                .as("a replayed 409").isEqualTo(new RetryDecision.Stop(RetryDecision.Reason.FINAL));
    }

    @ParameterizedTest
    @ValueSource(ints = {200, 201, 302, 400, 401, 403, 404, 408, 412, 422, 501, 505})
    void keyedCallStopsOnOtherAnswers(int status) {
        assertThat(decide(CallKind.KEYED, 1, status(status), PLENTY))
                .isEqualTo(new RetryDecision.Stop(RetryDecision.Reason.FINAL));
    }

    @Test
    void conflictOfAnUnkeyedCallIsABusinessAnswerNotAWait() {
        assertThat(decide(CallKind.IDEMPOTENT, 1, status(409), PLENTY))
                .isEqualTo(new RetryDecision.Stop(RetryDecision.Reason.FINAL));
        assertThat(decide(CallKind.IDEMPOTENT, 1, status(503), PLENTY)).isInstanceOf(RetryDecision.Retry.class);
    }

    @Test
    void ioFailuresAreRetriedForKeyedAndIdempotentCallsOnly() {
        for (IOException failure : new IOException[] {new IOException("reset"), new SocketTimeoutException(),
                new HttpTimeoutException("slow")}) {
            AttemptOutcome outcome = new AttemptOutcome.Failed(failure);

            assertThat(decide(CallKind.KEYED, 1, outcome, PLENTY)).isInstanceOf(RetryDecision.Retry.class);
            assertThat(decide(CallKind.IDEMPOTENT, 1, outcome, PLENTY)).isInstanceOf(RetryDecision.Retry.class);
            assertThat(decide(CallKind.ONCE, 1, outcome, PLENTY))
                    .isEqualTo(new RetryDecision.Stop(RetryDecision.Reason.FINAL));
        }
    }

    @Test
    void retryAfterSecondsAreWaitedExactly() {
        assertThat(decide(CallKind.KEYED, 1, new AttemptOutcome.Answered(409, "3", false), PLENTY))
                .isEqualTo(new RetryDecision.Retry(Duration.ofSeconds(3)));
    }

    @Test
    void retryAfterDateIsWaitedUntil() {
        AttemptOutcome outcome = new AttemptOutcome.Answered(429, "Tue, 01 Dec 2026 10:00:07 GMT", false);

        assertThat(decide(CallKind.KEYED, 1, outcome, PLENTY))
                .isEqualTo(new RetryDecision.Retry(Duration.ofSeconds(7)));
    }

    @Test
    void retryAfterBeyondTheDeadlineStops() {
        AttemptOutcome outcome = new AttemptOutcome.Answered(503, "30", false);

        assertThat(decide(CallKind.KEYED, 1, outcome, Duration.ofSeconds(29)))
                .isEqualTo(new RetryDecision.Stop(RetryDecision.Reason.RETRY_AFTER_BEYOND_DEADLINE));
    }

    @Test
    void unreadableRetryAfterFallsBackToTheBackoff() {
        RetryDecision decision = decide(CallKind.KEYED, 1, new AttemptOutcome.Answered(503, "soon", false), PLENTY);

        assertThat(decision).isInstanceOfSatisfying(RetryDecision.Retry.class,
                retry -> assertThat(retry.delay()).isLessThanOrEqualTo(Duration.ofMillis(100)));
    }

    @Test
    void backoffIsJitteredBelowAGrowingCappedCeiling() {
        for (int i = 0; i < 1000; i++) {
            assertThat(policy.backoff(1)).isBetween(Duration.ZERO, Duration.ofMillis(100));
            assertThat(policy.backoff(3)).isBetween(Duration.ZERO, Duration.ofMillis(400));
            assertThat(policy.backoff(30)).isBetween(Duration.ZERO, Duration.ofSeconds(1));
        }
    }

    @Test
    void stopsAfterTheLastAttempt() {
        assertThat(decide(CallKind.KEYED, 4, status(503), PLENTY))
                .isEqualTo(new RetryDecision.Stop(RetryDecision.Reason.ATTEMPTS_EXHAUSTED));
    }

    @Test
    void neverWaitsPastTheDeadline() {
        assertThat(decide(CallKind.KEYED, 1, status(503), Duration.ZERO))
                .isEqualTo(new RetryDecision.Stop(RetryDecision.Reason.DEADLINE_EXHAUSTED));
        assertThat(decide(CallKind.KEYED, 1, status(503), Duration.ofSeconds(-1)))
                .isEqualTo(new RetryDecision.Stop(RetryDecision.Reason.DEADLINE_EXHAUSTED));
    }

    @Test
    void refusesSettingsThatCannotWork() {
        assertThatThrownBy(() -> ClientRetryPolicy.builder().maxAttempts(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxAttempts");
        assertThatThrownBy(() -> ClientRetryPolicy.builder().multiplier(0.5))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("multiplier");
        assertThatThrownBy(() -> ClientRetryPolicy.builder().deadline(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("deadline");
        assertThatThrownBy(() -> ClientRetryPolicy.builder().initialBackoff(Duration.ofSeconds(5))
                .maxBackoff(Duration.ofSeconds(1)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxBackoff");
    }
}
