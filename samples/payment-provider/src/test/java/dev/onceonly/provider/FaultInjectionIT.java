package dev.onceonly.provider;

import static dev.onceonly.provider.ProviderClient.PROBLEMS;
import static dev.onceonly.provider.ProviderClient.chargeBody;
import static dev.onceonly.provider.ProviderClient.json;
import static dev.onceonly.provider.ProviderClient.newKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** Each injected fault does what a client must survive, and never makes a second charge for a key. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Timeout(60)
class FaultInjectionIT {

    @LocalServerPort
    int port;

    ProviderClient provider;

    @BeforeEach
    void clearFaults() throws Exception {
        provider = new ProviderClient(port);
        provider.clearFaults();
    }

    @AfterEach
    void releaseHeldRequests() throws Exception {
        provider.clearFaults();
    }

    @Test
    void retryableFailureChargesNothingAndTheRetryRunsAnew() throws Exception {
        String key = newKey();
        String body = chargeBody(1000, "order-" + UUID.randomUUID());
        provider.setFaults("{\"failures\":[\"retryable\"]}");

        HttpResponse<String> unavailable = provider.charge(key, body);
        int chargesAfterFailure = provider.chargesByKey(key).size();
        HttpResponse<String> retry = provider.charge(key, body);

        assertThat(unavailable.statusCode()).isEqualTo(503);
        assertThat(unavailable.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(json(unavailable).get("type").stringValue()).isEqualTo(PROBLEMS + "provider-unavailable");
        assertThat(chargesAfterFailure).isZero();
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(provider.chargesByKey(key)).hasSize(1);
    }

    @Test
    void declineIsRecordedAndReplayedByteForByte() throws Exception {
        String key = newKey();
        String body = chargeBody(1000, "order-" + UUID.randomUUID());
        provider.setFaults("{\"failures\":[\"decline\"]}");

        HttpResponse<String> declined = provider.charge(key, body);
        HttpResponse<String> replayed = provider.charge(key, body);

        assertThat(declined.statusCode()).isEqualTo(402);
        assertThat(declined.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(json(declined).get("type").stringValue()).isEqualTo(PROBLEMS + "card-declined");
        String chargeId = json(declined).get("chargeId").stringValue();
        assertThat(replayed.statusCode()).isEqualTo(402);
        assertThat(replayed.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(replayed.body()).isEqualTo(declined.body());
        assertThat(provider.chargesByKey(key)).singleElement().satisfies(charge -> {
            assertThat(charge.get("id").stringValue()).isEqualTo(chargeId);
            assertThat(charge.get("status").stringValue()).isEqualTo("declined");
        });
    }

    @Test
    void dropAfterCommitClosesTheConnectionUnansweredAndTheRetryGetsTheStoredCharge() throws Exception {
        String key = newKey();
        String body = chargeBody(1000, "order-" + UUID.randomUUID());
        provider.setFaults("{\"failures\":[\"drop-after-commit\"]}");

        assertThatThrownBy(() -> provider.charge(key, body)).isInstanceOf(IOException.class)
                .isNotInstanceOf(HttpTimeoutException.class);
        var charges = provider.chargesByKey(key);
        HttpResponse<String> retry = provider.charge(key, body);

        assertThat(charges).singleElement()
                .satisfies(charge -> assertThat(charge.get("status").stringValue()).isEqualTo("succeeded"));
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(json(retry).get("id")).isEqualTo(charges.getFirst().get("id"));
        assertThat(provider.chargesByKey(key)).hasSize(1);
    }

    @Test
    void timeoutChargesOnceAndHoldsTheAnswerWhileTheKeyStaysInProgress() throws Exception {
        String key = newKey();
        String body = chargeBody(1000, "order-" + UUID.randomUUID());
        provider.setFaults("{\"failures\":[\"timeout\"]}");
        HttpRequest impatient = HttpRequest.newBuilder(provider.chargeRequest(key, body), (name, value) -> true)
                .timeout(Duration.ofSeconds(2)).build();

        assertThatThrownBy(() -> provider.send(impatient)).isInstanceOf(HttpTimeoutException.class);
        var charges = provider.chargesByKey(key);
        HttpResponse<String> retryWhileHeld = provider.charge(key, body);
        provider.clearFaults();
        HttpResponse<String> retryAfterRelease = awaitAnswered(key, body);

        assertThat(charges).hasSize(1);
        assertThat(retryWhileHeld.statusCode()).isEqualTo(409);
        assertThat(retryAfterRelease.statusCode()).isEqualTo(201);
        assertThat(retryAfterRelease.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(json(retryAfterRelease).get("id")).isEqualTo(charges.getFirst().get("id"));
        assertThat(provider.chargesByKey(key)).hasSize(1);
    }

    @Test
    void failuresAreTakenOnePerNewRequestInOrderAndReplaysTakeNone() throws Exception {
        String reference = "order-" + UUID.randomUUID();
        String first = newKey();
        String second = newKey();
        String third = newKey();
        provider.setFaults("{\"failures\":[\"decline\",\"retryable\"]}");

        HttpResponse<String> declined = provider.charge(first, chargeBody(100, reference));
        HttpResponse<String> replay = provider.charge(first, chargeBody(100, reference));
        HttpResponse<String> unavailable = provider.charge(second, chargeBody(200, reference));
        HttpResponse<String> succeeded = provider.charge(third, chargeBody(300, reference));

        assertThat(declined.statusCode()).isEqualTo(402);
        assertThat(replay.statusCode()).isEqualTo(402);
        assertThat(unavailable.statusCode()).isEqualTo(503);
        assertThat(succeeded.statusCode()).isEqualTo(201);
        assertThat(provider.chargesByReference(reference)).extracting(charge -> charge.get("status").stringValue())
                .containsExactly("declined", "succeeded");
    }

    @Test
    void faultPlanIsShownAndAnUnknownFailureIsRefused() throws Exception {
        provider.setFaults("{\"latency\":\"PT0.5S\",\"failures\":[\"timeout\",\"drop-after-commit\"]}");

        HttpResponse<String> shown = provider.get("/admin/faults");
        HttpResponse<String> unknown = provider.putFaults("{\"failures\":[\"explode\"]}");
        HttpResponse<String> badLatency = provider.putFaults("{\"latency\":\"2 seconds\"}");

        assertThat(json(shown).get("latency").stringValue()).isEqualTo("PT0.5S");
        assertThat(json(shown).get("failures").valueStream().map(failure -> failure.stringValue()))
                .containsExactly("timeout", "drop-after-commit");
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(json(unknown).get("type").stringValue()).isEqualTo(PROBLEMS + "invalid-request");
        assertThat(badLatency.statusCode()).isEqualTo(400);
    }

    /** The released first request stores its answer just after the release; until then the key is in progress. */
    private HttpResponse<String> awaitAnswered(String key, String body) {
        return await().atMost(20, TimeUnit.SECONDS).until(() -> provider.charge(key, body),
                response -> response.statusCode() != 409);
    }
}
