package dev.onceonly.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceonly.conformance.ConformanceTarget;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistrar;
import org.springframework.test.context.TestPropertySource;

/**
 * Paying orders through the simulated provider, in this JVM on a random port, over the real HTTP stack against a
 * real database: synchronously, and asynchronously with {@code Prefer: respond-async}. Each database's test class
 * extends this once, each in a database of its own: the workers of every test context poll their database's task
 * table, and only this context's reach this provider.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@TestPropertySource(properties = {
    // A retry while a payment runs or backs off is answered at once, so that each answer shows where it stands.
    "onceonly.wait-timeout=0s",
    // A constant backoff, long enough that an immediate retry falls into it, and few attempts: the tests stay short.
    "onceonly.lease.backoff=2s",
    "onceonly.lease.max-backoff=2s",
    "onceonly.lease.max-attempts=3",
    // The provider holds a charge for a latency fault until the test releases it; the client must not give up first.
    "example.payments.provider-read-timeout=60s",
    // One call per payment attempt, so that each fault shows in the engine's failure classes; the client's own
    // retries under one key are onceonly-client's tests, and PaymentCrashIT's.
    "example.payments.provider-attempts=1"
})
@Timeout(180)
@Import(OrderPaymentsHttpContract.Provider.class)
abstract class OrderPaymentsHttpContract {

    private static final String PROBLEMS = "https://onceonly.dev/problems/";
    private static final Map<String, String> PASSWORDS = Map.of("alice", "alice-pass", "bob", "bob-pass");
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    /** This test context's provider, which its {@code example.payments.provider-url} names. */
    @Autowired
    PaymentProviderServer provider;

    /**
     * A provider of its own for every test context: its charges are listed by order id, which restarts with every
     * database, and only this context's workers reach it.
     */
    @TestConfiguration(proxyBeanMethods = false)
    static class Provider {

        @Bean
        PaymentProviderServer paymentProviderServer() {
            return PaymentProviderServer.start();
        }

        @Bean
        DynamicPropertyRegistrar paymentProviderUrl(PaymentProviderServer provider) {
            return registry -> registry.add("example.payments.provider-url", () -> provider.url().toString());
        }
    }

    @BeforeEach
    void noFaults() throws Exception {
        provider.clearFaults();
    }

    @Test
    void paymentChargesOnceAndItsRetryIsReplayed() throws Exception {
        long orderId = placeOrder();
        String key = newKey();

        HttpResponse<byte[]> first = pay(orderId, key);
        HttpResponse<byte[]> retry = pay(orderId, key);

        assertThat(first.statusCode()).as(text(first)).isEqualTo(201);
        assertThat(first.headers().firstValue("Location")).hasValue("/api/orders/" + orderId);
        assertThat(text(first)).contains("\"orderId\":" + orderId).contains("\"chargeId\":\"ch_")
                .contains("\"status\":\"PAID\"");
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(status(orderId)).isEqualTo("PAID");
        assertThat(provider.charges(orderId)).hasSize(1);
        assertThat(outbox(orderId)).containsExactly("order.paid");
    }

    @Test
    void declineIsA402ReplayedByteForByteAndTheOrderStillAwaitsPayment() throws Exception {
        provider.faults("{\"failures\":[\"decline\"]}");
        long orderId = placeOrder();
        String key = newKey();

        HttpResponse<byte[]> first = pay(orderId, key);
        HttpResponse<byte[]> second = pay(orderId, key);
        HttpResponse<byte[]> third = pay(orderId, key);

        assertProblem(first, 402, "payment-declined");
        assertThat(List.of(second, third)).allSatisfy(again -> {
            assertThat(again.statusCode()).isEqualTo(402);
            assertThat(again.body()).isEqualTo(first.body());
            assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        });
        assertThat(status(orderId)).isEqualTo("PENDING_PAYMENT");
        assertThat(provider.charges(orderId)).hasSize(1);
        assertThat(outbox(orderId)).isEmpty();
    }

    @Test
    void afterADeclineAnotherKeyMayPayTheOrder() throws Exception {
        provider.faults("{\"failures\":[\"decline\"]}");
        long orderId = placeOrder();
        pay(orderId, newKey());

        HttpResponse<byte[]> otherCard = pay(orderId, newKey());

        assertThat(otherCard.statusCode()).as(text(otherCard)).isEqualTo(201);
        assertThat(status(orderId)).isEqualTo("PAID");
        assertThat(provider.charges(orderId)).hasSize(2);
    }

    @Test
    void providerUnavailableTwiceIsAnswered503TwiceAndALaterRetryPaysOnce() throws Exception {
        provider.faults("{\"failures\":[\"retryable\",\"retryable\"]}");
        long orderId = placeOrder();
        String key = newKey();

        HttpResponse<byte[]> first = pay(orderId, key);
        HttpResponse<byte[]> tooSoon = pay(orderId, key);
        List<HttpResponse<byte[]>> answers = retryUntil(orderId, key, response -> response.statusCode() == 201);

        assertProblem(first, 503, "payment-provider-unavailable");
        assertThat(first.headers().firstValue("Retry-After")).isPresent();
        assertProblem(tooSoon, 409, "request-in-progress");
        assertThat(tooSoon.headers().firstValue("Retry-After")).isPresent();
        assertThat(answers).filteredOn(response -> response.statusCode() != 409)
                .extracting(HttpResponse::statusCode).containsExactly(503, 201);
        assertThat(status(orderId)).isEqualTo("PAID");
        assertThat(provider.charges(orderId)).hasSize(1);
    }

    @Test
    void attemptsPastTheMaximumEndWithTheLast503ReplayedFromThenOn() throws Exception {
        provider.faults("{\"failures\":[\"retryable\",\"retryable\",\"retryable\",\"retryable\"]}");
        long orderId = placeOrder();
        String key = newKey();

        List<HttpResponse<byte[]>> answers = retryUntil(orderId, key,
                response -> response.headers().firstValue("Idempotent-Replayed").isPresent());
        HttpResponse<byte[]> again = pay(orderId, key);

        HttpResponse<byte[]> replayed = answers.getLast();
        assertProblem(replayed, 503, "payment-provider-unavailable");
        assertThat(answers.subList(0, answers.size() - 1)).filteredOn(response -> response.statusCode() != 409)
                .extracting(HttpResponse::statusCode).containsExactly(503, 503, 503);
        assertThat(again.body()).isEqualTo(replayed.body());
        assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(status(orderId)).isEqualTo("PENDING_PAYMENT");
        assertThat(provider.charges(orderId)).isEmpty();
    }

    @Test
    void connectionDroppedAfterTheChargeIsA503AndTheRetryGetsTheProvidersStoredCharge() throws Exception {
        provider.faults("{\"failures\":[\"drop-after-commit\"]}");
        long orderId = placeOrder();
        String key = newKey();

        HttpResponse<byte[]> first = pay(orderId, key);
        List<HttpResponse<byte[]>> answers = retryUntil(orderId, key, response -> response.statusCode() == 201);

        assertProblem(first, 503, "payment-provider-unavailable");
        assertThat(text(answers.getLast())).contains("\"status\":\"PAID\"");
        assertThat(status(orderId)).isEqualTo("PAID");
        assertThat(provider.charges(orderId)).hasSize(1);
        assertThat(outbox(orderId)).containsExactly("order.paid");
    }

    @Test
    void paymentUnderAnotherKeyOfABoundOrderIsRefusedWithoutReachingTheProvider() throws Exception {
        provider.faults("{\"failures\":[\"retryable\"]}");
        long orderId = placeOrder();
        String key = newKey();
        pay(orderId, key);

        HttpResponse<byte[]> whileBound = pay(orderId, newKey());
        retryUntil(orderId, key, response -> response.statusCode() == 201);
        HttpResponse<byte[]> afterPaid = pay(orderId, newKey());

        assertProblem(whileBound, 409, "payment-in-progress");
        assertProblem(afterPaid, 409, "order-not-payable");
        assertThat(provider.charges(orderId)).hasSize(1);
    }

    @Test
    void paymentOfAnotherUsersOrderIsNotFound() throws Exception {
        long orderId = placeOrder();

        HttpResponse<byte[]> response = send(request("bob", "/api/orders/" + orderId + "/payments")
                .header("Idempotency-Key", newKey()).POST(HttpRequest.BodyPublishers.noBody()));

        assertProblem(response, 404, "order-not-found");
        assertThat(provider.charges(orderId)).isEmpty();
    }

    @Test
    void paymentIsAcceptedRunsWhileTheProviderHoldsItAndEndsWithOneCharge() throws Exception {
        provider.faults("{\"latency\":\"PT60S\"}");
        long orderId = placeOrder();
        String key = newKey();

        HttpResponse<byte[]> accepted = payAsynchronously(orderId, key);
        await().atMost(PATIENCE).until(() -> provider.charges(orderId).size() == 1);
        HttpResponse<byte[]> running = operation("alice", key);
        HttpResponse<byte[]> duplicateWhileRunning = payAsynchronously(orderId, key);
        provider.clearFaults();
        HttpResponse<byte[]> done = awaitOperation(key);
        HttpResponse<byte[]> duplicateWhenDone = payAsynchronously(orderId, key);

        assertThat(accepted.statusCode()).as(text(accepted)).isEqualTo(202);
        assertThat(accepted.headers().firstValue("Location")).hasValue("/api/payment-operations/" + key);
        assertThat(accepted.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(accepted.headers().firstValue("Preference-Applied")).hasValue("respond-async");
        assertThat(text(accepted)).contains("\"state\":\"PROCESSING\"").contains("\"attempt\":");
        assertThat(running.statusCode()).isEqualTo(202);
        assertThat(running.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(text(running)).contains("\"state\":\"PROCESSING\"");
        assertThat(duplicateWhileRunning.statusCode()).isEqualTo(202);
        assertThat(done.statusCode()).isEqualTo(201);
        assertThat(text(done)).contains("\"orderId\":" + orderId).contains("\"status\":\"PAID\"");
        assertThat(done.headers().firstValue("Location")).hasValue("/api/orders/" + orderId);
        assertThat(duplicateWhenDone.statusCode()).isEqualTo(201);
        assertThat(duplicateWhenDone.body()).isEqualTo(done.body());
        assertThat(duplicateWhenDone.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(status(orderId)).isEqualTo("PAID");
        assertThat(provider.charges(orderId)).hasSize(1);
        assertThat(outbox(orderId)).containsExactly("order.paid");
    }

    @Test
    void declineIsTheOperationsAnswer() throws Exception {
        provider.faults("{\"failures\":[\"decline\"]}");
        long orderId = placeOrder();
        String key = newKey();

        payAsynchronously(orderId, key);
        HttpResponse<byte[]> done = awaitOperation(key);

        assertProblem(done, 402, "payment-declined");
        assertThat(status(orderId)).isEqualTo("PENDING_PAYMENT");
    }

    @Test
    void providerUnavailableIsRetriedByTheWorkerUntilItPays() throws Exception {
        provider.faults("{\"failures\":[\"retryable\"]}");
        long orderId = placeOrder();
        String key = newKey();

        payAsynchronously(orderId, key);
        HttpResponse<byte[]> done = awaitOperation(key);

        assertThat(done.statusCode()).as(text(done)).isEqualTo(201);
        assertThat(provider.charges(orderId)).hasSize(1);
    }

    @Test
    void keyReusedForAnotherOrderIsA422Problem() throws Exception {
        long orderId = placeOrder();
        long otherOrderId = placeOrder();
        String key = newKey();
        payAsynchronously(orderId, key);

        HttpResponse<byte[]> reused = payAsynchronously(otherOrderId, key);

        assertProblem(reused, 422, "idempotency-key-reused");
        assertThat(awaitOperation(key).statusCode()).isEqualTo(201);
        assertThat(status(otherOrderId)).isEqualTo("PENDING_PAYMENT");
    }

    @Test
    void missingOrInvalidKeyIsRefusedWithTheFiltersProblems() throws Exception {
        long orderId = placeOrder();

        HttpResponse<byte[]> missing = send(request("alice", "/api/orders/" + orderId + "/payments")
                .header("Prefer", "respond-async").POST(HttpRequest.BodyPublishers.noBody()));
        HttpResponse<byte[]> invalid = payAsynchronously(orderId, "has spaces in it");

        assertProblem(missing, 400, "missing-idempotency-key");
        assertProblem(invalid, 400, "invalid-idempotency-key");
        assertThat(provider.charges(orderId)).isEmpty();
    }

    @Test
    void operationOfAnotherOwnerOrNeverSubmittedIsNotFound() throws Exception {
        long orderId = placeOrder();
        String key = newKey();
        payAsynchronously(orderId, key);

        HttpResponse<byte[]> otherOwner = operation("bob", key);
        HttpResponse<byte[]> unknown = operation("alice", newKey());

        assertProblem(otherOwner, 404, "operation-not-found");
        assertProblem(unknown, 404, "operation-not-found");
        assertThat(awaitOperation(key).statusCode()).isEqualTo(201);
    }

    @Test
    void paymentMadeSynchronouslyAndRetriedAsynchronouslyGetsItsFirstAnswer() throws Exception {
        long orderId = placeOrder();
        String key = newKey();

        HttpResponse<byte[]> first = pay(orderId, key);
        HttpResponse<byte[]> retry = payPreferringAsync(orderId, key);

        assertThat(first.statusCode()).as(text(first)).isEqualTo(201);
        assertThat(retry.statusCode()).as(text(retry)).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(provider.charges(orderId)).hasSize(1);
        assertThat(outbox(orderId)).containsExactly("order.paid");
    }

    @Test
    void paymentAcceptedAsynchronouslyAndRetriedSynchronouslyIsTheSamePayment() throws Exception {
        provider.faults("{\"latency\":\"PT60S\"}");
        long orderId = placeOrder();
        String key = newKey();

        HttpResponse<byte[]> accepted = payPreferringAsync(orderId, key);
        await().atMost(PATIENCE).until(() -> provider.charges(orderId).size() == 1);
        HttpResponse<byte[]> whileTheWorkerRuns = pay(orderId, key);
        provider.clearFaults();
        HttpResponse<byte[]> done = awaitOperation(key);
        HttpResponse<byte[]> retry = pay(orderId, key);

        assertThat(accepted.statusCode()).as(text(accepted)).isEqualTo(202);
        assertProblem(whileTheWorkerRuns, 409, "request-in-progress");
        assertThat(whileTheWorkerRuns.headers().firstValue("Retry-After")).isPresent();
        assertThat(done.statusCode()).as(text(done)).isEqualTo(201);
        assertThat(retry.statusCode()).as(text(retry)).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(done.body());
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(status(orderId)).isEqualTo("PAID");
        assertThat(provider.charges(orderId)).hasSize(1);
        assertThat(outbox(orderId)).containsExactly("order.paid");
    }

    /**
     * The black-box suite on payments: one key is one payment whichever style (synchronous, or {@code Prefer:
     * respond-async}) asked for it. Each case pays an order of its own; payments of one order by two users are
     * no case (the other user's is refused), so that case is the orders suite's.
     */
    ConformanceTarget conformanceTarget() {
        return ConformanceTarget.at(URI.create("http://127.0.0.1:" + port))
                .endpoint(() -> new ConformanceTarget.Endpoint("/api/orders/" + placeOrderUnchecked() + "/payments",
                        "{}", "{\"amount\": 1}"))
                .authorization(DemoClient.basic("alice")).problemTypeBase(PROBLEMS).respondsAsync(true).build();
    }

    private long placeOrderUnchecked() {
        try {
            return placeOrder();
        } catch (Exception e) {
            throw new IllegalStateException("could not place an order to pay", e);
        }
    }

    /** Retries the payment until {@code done} holds for an answer; every answer, in order, the last one done. */
    private List<HttpResponse<byte[]>> retryUntil(long orderId, String key,
            Predicate<HttpResponse<byte[]>> done) {
        List<HttpResponse<byte[]>> answers = new ArrayList<>();
        await().atMost(PATIENCE).pollInterval(Duration.ofMillis(300)).until(() -> {
            HttpResponse<byte[]> answer = pay(orderId, key);
            answers.add(answer);
            return done.test(answer);
        });
        return answers;
    }

    /** Polls the operation's status resource until it has its final answer. */
    private HttpResponse<byte[]> awaitOperation(String key) {
        return await().atMost(PATIENCE).pollInterval(Duration.ofMillis(300))
                .until(() -> operation("alice", key), response -> response.statusCode() != 202);
    }

    private HttpResponse<byte[]> pay(long orderId, String key) throws Exception {
        return send(request("alice", "/api/orders/" + orderId + "/payments").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.noBody()));
    }

    private HttpResponse<byte[]> payAsynchronously(long orderId, String key) throws Exception {
        return send(request("alice", "/api/orders/" + orderId + "/payments").header("Idempotency-Key", key)
                .header("Prefer", "respond-async").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{}")));
    }

    /** The request of {@link #pay}, but for the answer's form: the same request, as a retry may send it. */
    private HttpResponse<byte[]> payPreferringAsync(long orderId, String key) throws Exception {
        return send(request("alice", "/api/orders/" + orderId + "/payments").header("Idempotency-Key", key)
                .header("Prefer", "respond-async").POST(HttpRequest.BodyPublishers.noBody()));
    }

    private HttpResponse<byte[]> operation(String user, String key) throws Exception {
        return send(request(user, "/api/payment-operations/" + key).GET());
    }

    private long placeOrder() throws Exception {
        HttpResponse<byte[]> created = send(request("alice", "/api/orders").header("Idempotency-Key", newKey())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"skuId\": 7, \"quantity\": 3}")));
        assertThat(created.statusCode()).isEqualTo(201);
        String location = created.headers().firstValue("Location").orElseThrow();
        return Long.parseLong(location.substring(location.lastIndexOf('/') + 1));
    }

    private HttpRequest.Builder request(String user, String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                        (user + ":" + PASSWORDS.get(user)).getBytes(StandardCharsets.UTF_8)))
                .timeout(Duration.ofSeconds(90));
    }

    private HttpResponse<byte[]> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private String status(long orderId) {
        return jdbc.sql("SELECT status FROM orders WHERE id = ?").param(orderId).query(String.class).single();
    }

    private List<String> outbox(long orderId) {
        return jdbc.sql("SELECT event_type FROM payment_outbox WHERE aggregate_id = ? ORDER BY id").param(orderId)
                .query(String.class).list();
    }

    private static void assertProblem(HttpResponse<byte[]> response, int status, String type) {
        assertThat(response.statusCode()).as(text(response)).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(text(response)).contains("\"type\":\"" + PROBLEMS + type + "\"").contains("\"status\":" + status)
                .doesNotContain("Exception");
    }

    private static String newKey() {
        return UUID.randomUUID().toString();
    }

    private static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }
}
