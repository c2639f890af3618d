package dev.onceonly.example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.conformance.ConformanceTarget;
import dev.onceonly.example.orders.OrderPlaced;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The Idempotency-Key protocol of the orders API through the real HTTP stack (Tomcat, Spring Security, Spring
 * MVC) against a real database. Each database's test class extends this once.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(OrdersHttpContract.FailureInjection.class)
@Timeout(300)
abstract class OrdersHttpContract {

    private static final String ORDER = "{\"skuId\": 42, \"quantity\": 2}";
    private static final String PROBLEMS = "https://onceonly.dev/problems/";

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    @Autowired
    FailingOrderListener failures;

    @Autowired
    IdempotencyEngine engine;

    @Autowired
    MeterRegistry meters;

    @Autowired
    @Qualifier("onceOnlyHealthIndicator")
    HealthIndicator storeHealth;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    void sameKeyAndBodyTwiceMakeOneOrderAndTheRetryGetsTheFirstResponseByteForByte() throws Exception {
        String key = newKey();
        int before = orders("acme alice");

        HttpResponse<byte[]> first = post("alice", List.of(key), ORDER);
        HttpResponse<byte[]> retry = post("alice", List.of(key), ORDER);

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().allValues("Location")).isEqualTo(first.headers().allValues("Location"))
                .singleElement().asString().startsWith("/api/orders/");
        assertThat(retry.headers().allValues("Content-Type")).isEqualTo(first.headers().allValues("Content-Type"));
        assertThat(orders("acme alice")).isEqualTo(before + 1);
        HttpResponse<byte[]> read = get("alice", first.headers().firstValue("Location").orElseThrow());
        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(text(read)).contains(orderNo(first));
        assertThat(meters.get("onceonly.requests").tag("outcome", "replayed").counter().count()).isPositive();
    }

    @Test
    void healthIsUpWithTheStoreAndShowsOnlyTheStatusToAnonymousAndToUsers() throws Exception {
        HttpResponse<byte[]> anonymous = http.send(HttpRequest.newBuilder(uri("/actuator/health")).GET().build(),
                HttpResponse.BodyHandlers.ofByteArray());
        HttpResponse<byte[]> user = get("alice", "/actuator/health");
        HttpResponse<byte[]> anonymousComponent = http.send(HttpRequest.newBuilder(uri("/actuator/health/onceOnly"))
                .GET().build(), HttpResponse.BodyHandlers.ofByteArray());
        HttpResponse<byte[]> userComponent = get("alice", "/actuator/health/onceOnly");

        assertThat(storeHealth.health().getStatus()).isEqualTo(Status.UP);
        assertThat(anonymous.statusCode()).isEqualTo(200);
        assertThat(List.of(text(anonymous), text(user))).allSatisfy(body -> assertThat(body)
                .contains("\"status\":\"UP\"").doesNotContain("components", "details", "onceOnly"));
        assertThat(anonymousComponent.statusCode()).isEqualTo(401);
        assertThat(userComponent.statusCode()).isEqualTo(404);
    }

    @Test
    void twentyConcurrentRequestsWithOneKeyMakeOneOrder() throws Exception {
        String key = newKey();
        int before = orders("acme bob");

        List<HttpResponse<byte[]>> responses = ConcurrentRequests.send(20, i -> post("bob", List.of(key), ORDER));

        assertThat(orders("acme bob")).isEqualTo(before + 1);
        HttpResponse<byte[]> created = responses.stream().filter(r -> r.statusCode() == 201).findFirst().orElseThrow();
        assertThat(responses).allSatisfy(response -> {
            if (response.statusCode() == 201) {
                assertThat(response.body()).isEqualTo(created.body());
            } else {
                assertInProgress(response);
            }
        });
        assertThat(responses).filteredOn(r -> r.statusCode() == 201 && r.headers().firstValue(
                "Idempotent-Replayed").isEmpty()).hasSize(1);
    }

    @Test
    void sameKeyWithAnotherBodyIsRefusedWith422() throws Exception {
        String key = newKey();
        post("alice", List.of(key), ORDER);
        int before = orders("acme alice");

        HttpResponse<byte[]> other = post("alice", List.of(key), "{\"skuId\": 43, \"quantity\": 2}");

        assertProblem(other, 422, "idempotency-key-reused");
        assertThat(orders("acme alice")).isEqualTo(before);
    }

    @Test
    void firstAttemptThatFailsAfterItsInsertLetsTheSameKeySucceedLater() throws Exception {
        String key = newKey();
        int before = orders("acme alice");
        failures.failNext();

        HttpResponse<byte[]> failed = post("alice", List.of(key), ORDER);
        int afterFailure = orders("acme alice");
        HttpResponse<byte[]> retry = post("alice", List.of(key), ORDER);

        assertThat(engine.mode()).isEqualTo(IdempotencyMode.TRANSACTIONAL);
        assertThat(failed.statusCode()).isEqualTo(500);
        // The failure came after the order's INSERT: the insert and the key were rolled back together.
        assertThat(afterFailure).isEqualTo(before);
        assertThat(text(failed)).doesNotContain("Exception").doesNotContain("at dev.onceonly");
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(orders("acme alice")).isEqualTo(before + 1);
    }

    @Test
    void twoUsersWithTheSameKeyGetTwoOrders() throws Exception {
        String key = newKey();

        HttpResponse<byte[]> alice = post("alice", List.of(key), ORDER);
        HttpResponse<byte[]> bob = post("bob", List.of(key), ORDER);
        HttpResponse<byte[]> carol = post("carol", List.of(key), ORDER);

        assertThat(List.of(alice, bob, carol)).allSatisfy(response -> {
            assertThat(response.statusCode()).isEqualTo(201);
            assertThat(response.headers().firstValue("Idempotent-Replayed")).isEmpty();
        });
        assertThat(List.of(orderNo(alice), orderNo(bob), orderNo(carol))).doesNotHaveDuplicates();
        assertThat(get("bob", alice.headers().firstValue("Location").orElseThrow()).statusCode()).isEqualTo(404);
    }

    @Test
    void missingMalformedAndMultipleKeysAreRefusedWith400() throws Exception {
        int before = orders("acme alice");

        assertProblem(post("alice", List.of(), ORDER), 400, "missing-idempotency-key");
        assertProblem(post("alice", List.of("k".repeat(256)), ORDER), 400, "invalid-idempotency-key");
        assertProblem(post("alice", List.of("has spaces in it, and more"), ORDER), 400, "invalid-idempotency-key");
        assertProblem(post("alice", List.of("\"unterminated-0123456789"), ORDER), 400, "invalid-idempotency-key");
        assertProblem(post("alice", List.of(newKey(), newKey()), ORDER), 400, "invalid-idempotency-key");
        assertThat(orders("acme alice")).isEqualTo(before);
    }

    @ParameterizedTest
    @ValueSource(strings = {"{", "[1, 2", "not json", "", "{\"skuId\": 1, \"skuId\": 2, \"quantity\": 1}",
        "{\"skuId\": 1e999999999999, \"quantity\": 1}", "{\"skuId\": 42, \"quantity\": 2} trailing",
        "{\"skuId\": \"forty-two\", \"quantity\": 2}", "{\"skuId\": 42, \"quantity\": 500}", "[]", "null"})
    void malformedOrInvalidBodiesAreRefusedWith400NeverA500(String body) throws Exception {
        int before = orders("acme carol");

        HttpResponse<byte[]> response = post("carol", List.of(newKey()), body);

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(text(response)).doesNotContain("Exception").doesNotContain("\tat ");
        assertThat(orders("acme carol")).isEqualTo(before);
    }

    @Test
    void rejectedRequestIsStoredAndReplayedSoARetryCannotTurnItAround() throws Exception {
        String key = newKey();
        String tooMany = "{\"skuId\": 42, \"quantity\": 500}";

        HttpResponse<byte[]> rejected = post("carol", List.of(key), tooMany);
        HttpResponse<byte[]> retry = post("carol", List.of(key), tooMany);

        assertThat(rejected.statusCode()).isEqualTo(400);
        assertThat(retry.statusCode()).isEqualTo(400);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(rejected.body());
    }

    @Test
    void unsupportedMediaTypeIsStoredWithItsProblemBody() throws Exception {
        String key = newKey();
        HttpRequest plainText = HttpRequest.newBuilder(uri("/api/orders"))
                .header("Authorization", DemoClient.basic("carol")).header("Idempotency-Key", key)
                .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString("42 x 2")).build();

        HttpResponse<byte[]> first = http.send(plainText, HttpResponse.BodyHandlers.ofByteArray());
        HttpResponse<byte[]> retry = http.send(plainText, HttpResponse.BodyHandlers.ofByteArray());

        assertThat(first.statusCode()).isEqualTo(415);
        assertThat(text(first)).contains("\"status\":415");
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());
    }

    @Test
    void unauthenticatedRequestsAreRefused() throws Exception {
        HttpResponse<byte[]> response = http.send(HttpRequest.newBuilder(uri("/api/orders"))
                .header("Idempotency-Key", newKey()).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(ORDER)).build(), HttpResponse.BodyHandlers.ofByteArray());

        assertThat(response.statusCode()).isEqualTo(401);
    }

    @Test
    void listShowsOnlyTheCallersOrders() throws Exception {
        String orderNo = orderNo(post("carol", List.of(newKey()), ORDER));

        assertThat(text(get("carol", "/api/orders"))).contains(orderNo);
        assertThat(text(get("alice", "/api/orders"))).doesNotContain(orderNo);
    }

    @Test
    void duplicateStormOnOneKeyLeavesOtherKeysServed() throws Exception {
        String stormKey = newKey();
        int stormSize = 200;
        int others = 60;
        int before = orders("acme bob");
        int carolBefore = orders("globex carol");

        List<HttpResponse<byte[]>> responses = ConcurrentRequests.send(stormSize + others, i -> i < stormSize
                ? post("bob", List.of(stormKey), ORDER)
                : post("carol", List.of(newKey()), ORDER));

        List<HttpResponse<byte[]>> storm = responses.subList(0, stormSize);
        List<HttpResponse<byte[]>> otherKeys = responses.subList(stormSize, responses.size());
        assertThat(orders("acme bob")).isEqualTo(before + 1);
        assertThat(otherKeys).allSatisfy(response -> {
            assertThat(response.statusCode()).isEqualTo(201);
            assertThat(response.headers().firstValue("Idempotent-Replayed")).isEmpty();
        });
        assertThat(orders("globex carol")).isEqualTo(carolBefore + others);
        byte[] created = storm.stream().filter(r -> r.statusCode() == 201).findFirst().orElseThrow().body();
        assertThat(storm).allSatisfy(response -> {
            if (response.statusCode() == 201) {
                assertThat(response.body()).isEqualTo(created);
            } else {
                assertInProgress(response);
            }
        });
    }

    /** The protocol as any client sees it: the black-box suite a team can point at its own API. */
    ConformanceTarget conformanceTarget() {
        return ConformanceTarget.at(URI.create("http://127.0.0.1:" + port))
                .endpoint(() -> new ConformanceTarget.Endpoint("/api/orders", ORDER, "{\"skuId\": 43, \"quantity\": 2}",
                        "{\n  \"quantity\" : 2.0,\n  \"skuId\":42 }"))
                .authorization(DemoClient.basic("alice")).otherOwnerAuthorization(DemoClient.basic("bob"))
                .problemTypeBase(PROBLEMS).bypassPath("/api/orders").build();
    }

    private void assertInProgress(HttpResponse<byte[]> response) {
        assertProblem(response, 409, "request-in-progress");
        assertThat(response.headers().firstValue("Retry-After")).hasValueSatisfying(
                seconds -> assertThat(Integer.parseInt(seconds)).isPositive());
    }

    private static void assertProblem(HttpResponse<byte[]> response, int status, String type) {
        assertThat(response.statusCode()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(text(response)).contains("\"type\":\"" + PROBLEMS + type + "\"").contains("\"status\":" + status)
                .doesNotContain("Exception");
    }

    HttpResponse<byte[]> post(String user, List<String> keys, String body) throws Exception {
        return new DemoClient(port).post(user, "/api/orders", keys, body);
    }

    HttpResponse<byte[]> get(String user, String path) throws Exception {
        return new DemoClient(port).get(user, path);
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private int orders(String owner) {
        return jdbc.sql("SELECT count(*) FROM orders WHERE owner = ?").param(owner).query(Integer.class).single();
    }

    private static String newKey() {
        return UUID.randomUUID().toString();
    }

    private static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    private static String orderNo(HttpResponse<byte[]> response) {
        String body = text(response);
        int at = body.indexOf("ORD-");
        assertThat(at).as("order number in %s", body).isNotNegative();
        return body.substring(at, at + 16);
    }

    /** Fails on demand right after an order was inserted: a failure inside the idempotent transaction. */
    static final class FailingOrderListener {

        private final AtomicInteger failures = new AtomicInteger();

        void failNext() {
            failures.incrementAndGet();
        }

        @EventListener
        void onOrderPlaced(OrderPlaced placed) {
            if (failures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new IllegalStateException("the order's follow-up failed (injected by the test)");
            }
        }
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class FailureInjection {

        @Bean
        FailingOrderListener failingOrderListener() {
            return new FailingOrderListener();
        }
    }
}
