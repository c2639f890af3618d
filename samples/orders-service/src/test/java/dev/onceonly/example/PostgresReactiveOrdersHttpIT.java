package dev.onceonly.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceonly.conformance.ConformanceTarget;
import dev.onceonly.conformance.IdempotencyKeyConformance;
import dev.onceonly.webfluxtwin.EventLoopGuard;
import dev.onceonly.webfluxtwin.ReactiveOrdersApplication;
import dev.onceonly.webfluxtwin.ReactiveTestEndpoints;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

/**
 * The orders API's HTTP contract, every case of it, on the service's WebFlux twin (Reactor Netty, reactive Spring
 * Security) against PostgreSQL, with Spring's own error handling (no problem-details handler: the 4xx that Spring
 * makes of bad bodies are stored all the same); and no store call ever runs on the event loop.
 */
@SpringBootTest(classes = ReactiveOrdersApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.main.web-application-type=reactive",
            "spring.datasource.url=${onceonly.test.postgres.url:jdbc:postgresql://127.0.0.1:5432/test?user=postgres}"
                    + "&currentSchema=onceonly_example_reactive",
            "spring.flyway.schemas=onceonly_example_reactive",
            "onceonly.http.endpoints[0].path=/api/routed-orders",
            "onceonly.http.endpoints[0].operation=create-routed-order",
            "onceonly.http.endpoints[1].path=/api/form-orders",
            "onceonly.http.endpoints[2].path=/api/slow-orders",
            "onceonly.http.endpoints[3].path=/api/hopping-orders"
        })
@Import(ReactiveTestEndpoints.class)
class PostgresReactiveOrdersHttpIT extends OrdersHttpContract {

    private static final String ORDER = "{\"skuId\": 42, \"quantity\": 2}";

    @Autowired
    EventLoopGuard guard;

    @AfterEach
    void noStoreCallRanOnTheEventLoop() {
        assertThat(guard.violations()).isEmpty();
    }

    @Test
    void theGuardSeesTheEventLoopAndTheStoreRunsOffIt() throws Exception {
        // Without credentials: Spring Security checks a password on a scheduler of its own, and the handler of an
        // authenticated request may go on there, off the event loop.
        HttpResponse<byte[]> probe = new DemoClient(port).getAnonymously("/probe/event-loop");
        post("alice", List.of(UUID.randomUUID().toString()), ORDER);

        assertThat(new String(probe.body(), StandardCharsets.UTF_8)).isEqualTo("true");
        // The requests' calls ran on OnceOnly's scheduler; the other threads are its background tasks'.
        assertThat(guard.storeThreads()).anySatisfy(thread -> assertThat(thread).startsWith("onceonly-http-"))
                .noneSatisfy(thread -> assertThat(thread).startsWith("reactor-http"));
    }

    @Test
    void aRouterFunctionIsIdempotentByPath() throws Exception {
        String key = UUID.randomUUID().toString();
        DemoClient client = new DemoClient(port);

        HttpResponse<byte[]> first = client.post("alice", "/api/routed-orders", List.of(key), ORDER);
        HttpResponse<byte[]> retry = client.post("alice", "/api/routed-orders", List.of(key), ORDER);
        HttpResponse<byte[]> other = client.post("alice", "/api/routed-orders", List.of(key),
                "{\"skuId\": 43, \"quantity\": 2}");

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(other.statusCode()).isEqualTo(422);
    }

    @Test
    void aFormIsFingerprintedByItsFieldsAndTheHandlerStillReadsThem() throws Exception {
        String key = UUID.randomUUID().toString();

        HttpResponse<byte[]> first = form(key, "skuId=42&quantity=2");
        HttpResponse<byte[]> reordered = form(key, "quantity=2&skuId=42");
        HttpResponse<byte[]> other = form(key, "skuId=42&quantity=3");

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(reordered.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(reordered.body()).isEqualTo(first.body());
        assertThat(other.statusCode()).isEqualTo(422);
    }

    @Test
    void aClientThatGoesAwayLeavesTheAttemptToFinishAndItsRetryGetsTheOutcome() throws Exception {
        String key = UUID.randomUUID().toString();
        ReactiveTestEndpoints.SLOW_ORDERS.close();
        try (Socket impatient = new Socket("127.0.0.1", port)) {
            byte[] body = ORDER.getBytes(StandardCharsets.UTF_8);
            impatient.getOutputStream().write(("POST /api/slow-orders HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Authorization: " + DemoClient.basic("alice") + "\r\nIdempotency-Key: " + key + "\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            impatient.getOutputStream().write(body);
            impatient.getOutputStream().flush();
            // The client goes away only once the attempt runs: before that, nothing ran and a retry is a first try.
            assertThat(ReactiveTestEndpoints.SLOW_ORDERS.awaitEntered(Duration.ofSeconds(20))).isTrue();
        } finally {
            ReactiveTestEndpoints.SLOW_ORDERS.open();
        }
        HttpResponse<byte[]> retry = await().atMost(Duration.ofSeconds(20)).until(() -> new DemoClient(port)
                .post("alice", "/api/slow-orders", List.of(key), ORDER), response -> response.statusCode() == 201);

        // Not interrupted by the disconnect: the first attempt created the order, the retry replays it.
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    }

    @Test
    void aHandlerThatLeavesItsTransactionEndsItsKeyWithAStored500() throws Exception {
        String key = UUID.randomUUID().toString();
        DemoClient client = new DemoClient(port);

        HttpResponse<byte[]> first = client.post("alice", "/api/hopping-orders", List.of(key), ORDER);
        HttpResponse<byte[]> retry = client.post("alice", "/api/hopping-orders", List.of(key), ORDER);

        assertThat(first.statusCode()).isEqualTo(500);
        assertThat(new String(first.body(), StandardCharsets.UTF_8)).contains("handler-left-transaction");
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());
    }

    // A filter's throw is an error on the transaction's thread: it rolls back, and never ends the key as left behind.
    @Test
    void aFilterAfterOursThatThrowsLeavesTheKeyForARetry() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<byte[]> failed = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                        "http://127.0.0.1:" + port + "/api/orders")).header("Authorization", DemoClient.basic("alice"))
                .header("Idempotency-Key", key).header("Content-Type", "application/json")
                .header(ReactiveTestEndpoints.THROW_HEADER, "yes").POST(HttpRequest.BodyPublishers.ofString(ORDER))
                .build(), HttpResponse.BodyHandlers.ofByteArray());

        HttpResponse<byte[]> retry = post("alice", List.of(key), ORDER);

        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
    }

    private HttpResponse<byte[]> form(String key, String fields) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                        + "/api/form-orders")).header("Authorization", DemoClient.basic("alice"))
                .header("Idempotency-Key", key).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(fields)).build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    @Nested
    class Conformance extends IdempotencyKeyConformance {

        @Override
        protected ConformanceTarget target() {
            return conformanceTarget();
        }
    }
}
