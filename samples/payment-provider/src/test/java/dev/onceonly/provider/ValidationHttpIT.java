package dev.onceonly.provider;

import static dev.onceonly.provider.ProviderClient.PROBLEMS;
import static dev.onceonly.provider.ProviderClient.chargeBody;
import static dev.onceonly.provider.ProviderClient.json;
import static dev.onceonly.provider.ProviderClient.newKey;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** Bad keys and bodies are refused with a 400 problem before anything is charged or remembered. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Timeout(60)
class ValidationHttpIT {

    @LocalServerPort
    int port;

    ProviderClient provider;

    @BeforeEach
    void clearFaults() throws Exception {
        provider = new ProviderClient(port);
        provider.clearFaults();
    }

    @Test
    void chargeWithoutAKeyIsRefused() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/charges"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(chargeBody(100, "order-1"))).build();

        HttpResponse<String> response = provider.send(request);

        assertProblem(response, "invalid-idempotency-key");
    }

    @Test
    void keyOf256CharactersIsRefusedAndOf255Accepted() throws Exception {
        String longest = "k".repeat(255);

        HttpResponse<String> tooLong = provider.charge("k".repeat(256), chargeBody(100, "order-1"));
        HttpResponse<String> accepted = provider.charge(longest, chargeBody(100, "order-1"));

        assertProblem(tooLong, "invalid-idempotency-key");
        assertThat(accepted.statusCode()).isEqualTo(201);
    }

    @Test
    void keyWithANonPrintableCharacterIsRefused() throws Exception {
        String key = newKey() + "\tx";

        HttpResponse<String> response = provider.charge(key, chargeBody(100, "order-1"));

        assertProblem(response, "invalid-idempotency-key");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "",
        "not json",
        "[1, 2]",
        "{\"currency\":\"EUR\",\"reference\":\"order-1\"}",
        "{\"amount\":0,\"currency\":\"EUR\",\"reference\":\"order-1\"}",
        "{\"amount\":10000001,\"currency\":\"EUR\",\"reference\":\"order-1\"}",
        "{\"amount\":1.5,\"currency\":\"EUR\",\"reference\":\"order-1\"}",
        "{\"amount\":\"100\",\"currency\":\"EUR\",\"reference\":\"order-1\"}",
        "{\"amount\":100,\"currency\":\"eur\",\"reference\":\"order-1\"}",
        "{\"amount\":100,\"currency\":\"EURO\",\"reference\":\"order-1\"}",
        "{\"amount\":100,\"reference\":\"order-1\"}",
        "{\"amount\":100,\"currency\":\"EUR\",\"reference\":\"\"}",
        "{\"amount\":100,\"currency\":\"EUR\",\"reference\":\"12345678901234567890123456789012345678901234567890123456789012345\"}",
        "{\"amount\":100,\"currency\":\"EUR\"}",
        "{\"amount\":100,\"currency\":\"EUR\",\"reference\":\"order-1\",\"card\":\"4242\"}"
    })
    void invalidBodyIsRefusedAndChargesNothing(String body) throws Exception {
        String key = newKey();

        HttpResponse<String> response = provider.charge(key, body);
        HttpResponse<String> valid = provider.charge(key, chargeBody(100, "order-1"));

        assertProblem(response, "invalid-request");
        assertThat(valid.statusCode()).as("the refused request left the key unused").isEqualTo(201);
        assertThat(provider.chargesByKey(key)).hasSize(1);
    }

    @Test
    void bodyOfTheLargestAmountAndLongestReferenceIsAccepted() throws Exception {
        HttpResponse<String> response = provider.charge(newKey(), chargeBody(10_000_000, "r".repeat(64)));

        assertThat(response.statusCode()).isEqualTo(201);
    }

    @Test
    void listingNeedsExactlyOneOfKeyAndReference() throws Exception {
        HttpResponse<String> neither = provider.get("/charges");
        HttpResponse<String> both = provider.get("/charges?key=a&reference=b");

        assertProblem(neither, "invalid-request");
        assertProblem(both, "invalid-request");
    }

    private static void assertProblem(HttpResponse<String> response, String slug) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(json(response).get("type").stringValue()).isEqualTo(PROBLEMS + slug);
        assertThat(response.body()).doesNotContain("Exception");
    }
}
