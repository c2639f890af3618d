package dev.onceonly.example;

import static dev.onceonly.example.DemoClient.text;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The checkout API the checkout page calls: one order per Idempotency-Key, and one per form token. With Redis
 * answering a token is spent by its first submission; without Redis none is issued and the key alone guards the
 * order, as documented. Each Redis situation's test class extends this once.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(OrdersHttpContract.FailureInjection.class)
@Timeout(120)
abstract class CheckoutHttpContract {

    private static final String PROBLEMS = "https://onceonly.dev/problems/";
    private static final Pattern TOKEN = Pattern.compile("\"formToken\":\"([A-Za-z0-9_-]+)\"");

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    @Autowired
    OrdersHttpContract.FailingOrderListener failures;

    private DemoClient client;

    /** Whether Redis answers in this test class, so form tokens are issued and checked. */
    protected abstract boolean redisAnswers();

    @BeforeEach
    void connect() {
        client = new DemoClient(port);
    }

    @Test
    void aRetryOfTheSameSubmissionReplaysItsOrder() throws Exception {
        String token = token("alice");
        String key = UUID.randomUUID().toString();
        int before = orders("acme alice");

        HttpResponse<byte[]> first = checkout("alice", key, token);
        HttpResponse<byte[]> retry = checkout("alice", key, token);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(orders("acme alice")).isEqualTo(before + 1);
    }

    @Test
    void oneFormSubmittedUnderTenKeysAtOnceMakesOneOrderWhileRedisAnswers() throws Exception {
        String token = token("bob");
        int before = orders("acme bob");

        List<HttpResponse<byte[]>> responses = ConcurrentRequests.send(10,
                i -> checkout("bob", UUID.randomUUID().toString(), token));

        if (redisAnswers()) {
            assertThat(responses).filteredOn(response -> response.statusCode() == 201).hasSize(1);
            assertThat(responses).filteredOn(response -> response.statusCode() != 201)
                    .hasSize(9).allSatisfy(response -> assertProblem(response, 409, "form-token-used"));
            assertThat(orders("acme bob")).isEqualTo(before + 1);
        } else {
            // No token to spend: each key is its own submission.
            assertThat(token).isNull();
            assertThat(responses).allSatisfy(response -> assertThat(response.statusCode()).isEqualTo(201));
            assertThat(orders("acme bob")).isEqualTo(before + 10);
        }
    }

    @Test
    void aTokenThatWasNeverIssuedOrIsAnotherUsersIsRefusedWhileRedisAnswers() throws Exception {
        String alicesToken = token("alice");

        HttpResponse<byte[]> forged = checkout("carol", UUID.randomUUID().toString(), "AAAAAAAAAAAAAAAAAAAAAA");
        HttpResponse<byte[]> borrowed = checkout("carol", UUID.randomUUID().toString(), alicesToken);

        if (redisAnswers()) {
            assertProblem(forged, 400, "form-token-invalid");
            assertProblem(borrowed, 400, "form-token-invalid");
            assertThat(checkout("alice", UUID.randomUUID().toString(), alicesToken).statusCode()).isEqualTo(201);
        } else {
            assertThat(forged.statusCode()).isEqualTo(201);
        }
    }

    @Test
    void aSubmissionThatRolledBackGivesItsTokenBackAndItsRetryPlacesTheOrder() throws Exception {
        String token = token("alice");
        String key = UUID.randomUUID().toString();
        int before = orders("acme alice");
        failures.failNext();

        HttpResponse<byte[]> failed = checkout("alice", key, token);
        HttpResponse<byte[]> retry = checkout("alice", key, token);

        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(orders("acme alice")).isEqualTo(before + 1);
    }

    @Test
    void thePageIsServedWithoutSigningIn() throws Exception {
        HttpResponse<byte[]> page = client.getAnonymously("/checkout.html");

        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(text(page)).contains("<button id=\"place\"");
    }

    private @Nullable String token(String user) throws Exception {
        HttpResponse<byte[]> response = client.get(user, "/api/checkout/token");
        assertThat(response.statusCode()).isEqualTo(200);
        Matcher token = TOKEN.matcher(text(response));
        if (redisAnswers()) {
            assertThat(token.find()).as("a token in %s", text(response)).isTrue();
            return token.group(1);
        }
        assertThat(text(response)).contains("\"formToken\":null");
        return null;
    }

    private HttpResponse<byte[]> checkout(String user, String key, @Nullable String token) throws Exception {
        String formToken = token == null ? "null" : "\"" + token + "\"";
        return client.post(user, "/api/checkout", List.of(key),
                "{\"formToken\": " + formToken + ", \"skuId\": 42, \"quantity\": 1}");
    }

    private static void assertProblem(HttpResponse<byte[]> response, int status, String type) {
        assertThat(response.statusCode()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(text(response)).contains("\"type\":\"" + PROBLEMS + type + "\"");
    }

    private int orders(String owner) {
        return jdbc.sql("SELECT count(*) FROM orders WHERE owner = ?").param(owner).query(Integer.class).single();
    }
}
