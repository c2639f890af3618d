package dev.onceonly.provider;

import static dev.onceonly.provider.ProviderClient.PROBLEMS;
import static dev.onceonly.provider.ProviderClient.chargeBody;
import static dev.onceonly.provider.ProviderClient.json;
import static dev.onceonly.provider.ProviderClient.newKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/** Charges are made once per Idempotency-Key; the listing shows the effects actually made. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Timeout(60)
class ChargesHttpIT {

    @LocalServerPort
    int port;

    ProviderClient provider;

    @BeforeEach
    void clearFaults() throws Exception {
        provider = new ProviderClient(port);
        provider.clearFaults();
    }

    @Test
    void sameKeyAndBodyTwiceMakesOneChargeAndReplaysTheFirstAnswer() throws Exception {
        String key = newKey();
        String body = chargeBody(1250, "order-" + UUID.randomUUID());

        HttpResponse<String> first = provider.charge(key, body);
        HttpResponse<String> second = provider.charge(key, body);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        JsonNode charge = json(first);
        assertThat(charge.get("id").stringValue()).startsWith("ch_");
        assertThat(charge.get("key").stringValue()).isEqualTo(key);
        assertThat(charge.get("amount").longValue()).isEqualTo(1250);
        assertThat(charge.get("status").stringValue()).isEqualTo("succeeded");
        assertThat(second.statusCode()).isEqualTo(201);
        assertThat(second.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(provider.chargesByKey(key)).singleElement()
                .satisfies(listed -> assertThat(listed.get("id")).isEqualTo(charge.get("id")));
    }

    @Test
    void sameBodyWithOtherWhitespaceAndFieldOrderIsTheSameRequest() throws Exception {
        String key = newKey();
        String reference = "order-" + UUID.randomUUID();

        HttpResponse<String> first = provider.charge(key, chargeBody(700, reference));
        HttpResponse<String> second = provider.charge(key,
                "{ \"reference\" : \"" + reference + "\", \"currency\": \"EUR\", \"amount\": 700 }");

        assertThat(second.statusCode()).isEqualTo(201);
        assertThat(second.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(second.body()).isEqualTo(first.body());
    }

    @Test
    void sameKeyWithAnotherBodyIsRefusedAndChargesNothingMore() throws Exception {
        String key = newKey();
        String reference = "order-" + UUID.randomUUID();
        provider.charge(key, chargeBody(1250, reference));

        HttpResponse<String> reused = provider.charge(key, chargeBody(9999, reference));

        assertThat(reused.statusCode()).isEqualTo(422);
        assertThat(reused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(json(reused).get("type").stringValue()).isEqualTo(PROBLEMS + "idempotency-key-reused");
        assertThat(provider.chargesByKey(key)).singleElement()
                .satisfies(listed -> assertThat(listed.get("amount").longValue()).isEqualTo(1250));
    }

    @Test
    void sameKeyWhileTheFirstRequestIsHeldIsRefusedAsInProgressAndChargesOnce() throws Exception {
        String key = newKey();
        String body = chargeBody(500, "order-" + UUID.randomUUID());
        provider.setFaults("{\"latency\":\"PT60S\"}");
        CompletableFuture<HttpResponse<String>> first = provider.chargeAsync(key, body);
        // The charge is recorded before the latency: once it is listed, the first request is being held.
        await().atMost(20, TimeUnit.SECONDS).until(() -> provider.chargesByKey(key).size() == 1);

        HttpResponse<String> concurrent = provider.charge(key, body);
        provider.clearFaults();

        assertThat(concurrent.statusCode()).isEqualTo(409);
        assertThat(concurrent.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(json(concurrent).get("type").stringValue()).isEqualTo(PROBLEMS + "request-in-progress");
        assertThat(first.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
        assertThat(provider.chargesByKey(key)).hasSize(1);
    }

    @Test
    void chargesOfAReferenceAreListedInCreationOrder() throws Exception {
        String reference = "order-" + UUID.randomUUID();
        String firstKey = newKey();
        String secondKey = newKey();

        provider.charge(firstKey, chargeBody(100, reference));
        provider.charge(secondKey, chargeBody(200, reference));
        provider.charge(firstKey, chargeBody(100, reference));

        List<JsonNode> charges = provider.chargesByReference(reference);
        assertThat(charges).extracting(charge -> charge.get("key").stringValue()).containsExactly(firstKey, secondKey);
    }

    @Test
    void refundMarksTheChargeRefundedAndARepeatAnswersTheSame() throws Exception {
        String key = newKey();
        String chargeId = json(provider.charge(key, chargeBody(300, "order-" + UUID.randomUUID())))
                .get("id").stringValue();

        HttpResponse<String> refund = provider.post("/charges/" + chargeId + "/refunds");
        HttpResponse<String> again = provider.post("/charges/" + chargeId + "/refunds");

        assertThat(refund.statusCode()).isEqualTo(200);
        assertThat(json(refund).get("status").stringValue()).isEqualTo("refunded");
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(again.body()).isEqualTo(refund.body());
        assertThat(provider.chargesByKey(key)).singleElement()
                .satisfies(listed -> assertThat(listed.get("status").stringValue()).isEqualTo("refunded"));
    }

    @Test
    void refundOfAnUnknownChargeIsANotFoundProblem() throws Exception {
        HttpResponse<String> refund = provider.post("/charges/ch_unknown/refunds");

        assertThat(refund.statusCode()).isEqualTo(404);
        assertThat(json(refund).get("type").stringValue()).isEqualTo(PROBLEMS + "charge-not-found");
    }

    @Test
    void healthIsUp() throws Exception {
        HttpResponse<String> health = provider.get("/actuator/health");

        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(json(health).get("status").stringValue()).isEqualTo("UP");
    }
}
