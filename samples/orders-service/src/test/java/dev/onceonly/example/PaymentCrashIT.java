package dev.onceonly.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceonly.client.CallResult;
import dev.onceonly.client.ClientRetryPolicy;
import dev.onceonly.client.RetryingHttpClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.json.JsonMapper;

/**
 * Payments through crashes and stalls, with the reference service as a real process (killed with SIGKILL, frozen
 * with SIGSTOP) and the simulated provider beside it: whatever happens, the provider shows exactly one charge for
 * the order, and every client gets the same answer.
 */
@Timeout(300)
class PaymentCrashIT {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String BASIC = "Basic " + Base64.getEncoder().encodeToString(
            "alice:alice-pass".getBytes(StandardCharsets.UTF_8));
    /** A lease short enough to run out within a test, renewed every second by a live attempt. */
    private static final String LEASE = "3s";

    private static final PaymentProviderServer PROVIDER = PaymentProviderServer.start();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private final List<ServiceProcess> services = new ArrayList<>();

    @AfterEach
    void stopServices() throws Exception {
        PROVIDER.clearFaults();
        for (ServiceProcess service : services) {
            service.close();
        }
    }

    private ServiceProcess service(String name) throws Exception {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("spring.datasource.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"
                + "&currentSchema=onceonly_e2e");
        properties.put("spring.flyway.schemas", "onceonly_e2e");
        properties.put("example.payments.provider-url", PROVIDER.url().toString());
        properties.put("onceonly.lease.duration", LEASE);
        // Longer than the longest answer the provider is made to hold back in these tests.
        properties.put("example.payments.provider-read-timeout", "30s");
        properties.put("onceonly.wait-timeout", "0s");
        properties.put("onceonly.async.heartbeat-interval", "1s");
        properties.put("onceonly.async.missed-heartbeats", "4");
        properties.put("onceonly.async.polling-interval", "500ms");
        ServiceProcess service = ServiceProcess.start(name, properties);
        services.add(service);
        return service;
    }

    @Test
    void synchronousPaymentKilledInFlightIsCompletedByARetryAfterRestartWithOneCharge() throws Exception {
        ServiceProcess service = service("sync-killed");
        long order = createOrder(service);
        String key = UUID.randomUUID().toString();
        holdCharges();

        CompletableFuture<HttpResponse<String>> inFlight = payAsync(service, order, key, false);
        awaitCharges(order, 1);
        service.kill();
        PROVIDER.clearFaults();
        service.restart();
        HttpResponse<String> retried = retryUntilSettled(service, order, key);
        HttpResponse<String> again = pay(service, order, key, false);

        assertThat(inFlight).failsWithin(Duration.ofSeconds(30));
        assertThat(retried.statusCode()).isEqualTo(201);
        assertThat(again.statusCode()).isEqualTo(201);
        assertThat(again.body()).isEqualTo(retried.body());
        assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(charges(order)).isEqualTo(1);
        assertThat(orderStatus(service, order)).isEqualTo("PAID");
    }

    @Test
    void asynchronousPaymentKilledInFlightIsCompletedByTheRecoveringWorkerAloneWithOneCharge() throws Exception {
        ServiceProcess service = service("async-killed");
        long order = createOrder(service);
        String key = UUID.randomUUID().toString();
        holdCharges();

        HttpResponse<String> accepted = pay(service, order, key, true);
        awaitCharges(order, 1);
        service.kill();
        PROVIDER.clearFaults();
        service.restart();
        // No client retries the request: the worker alone finds the dead attempt and finishes it.
        URI status = service.uri(accepted.headers().firstValue("Location").orElseThrow());
        HttpResponse<String> done = await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                .until(() -> get(status), response -> response.statusCode() != 202);

        assertThat(accepted.statusCode()).isEqualTo(202);
        assertThat(done.statusCode()).isEqualTo(201);
        assertThat(charges(order)).isEqualTo(1);
        assertThat(orderStatus(service, order)).isEqualTo("PAID");
        HttpResponse<String> duplicate = pay(service, order, key, true);
        assertThat(duplicate.statusCode()).isEqualTo(201);
        assertThat(duplicate.body()).isEqualTo(done.body());
    }

    @Test
    void stalledAttemptIsTakenOverElsewhereAndFencedOutWhenItWakesAndBothClientsSeeOneAnswer() throws Exception {
        ServiceProcess stalled = service("stalled");
        ServiceProcess healthy = service("healthy");
        long order = createOrder(stalled);
        String key = UUID.randomUUID().toString();
        holdCharges();

        CompletableFuture<HttpResponse<String>> first = payAsync(stalled, order, key, false);
        awaitCharges(order, 1);
        stalled.freeze();
        PROVIDER.clearFaults();
        // Its heartbeats stopped with it: once the lease ran out, the retry elsewhere takes over.
        HttpResponse<String> takeover = retryUntilSettled(healthy, order, key);
        stalled.thaw();
        HttpResponse<String> woken = first.get();

        assertThat(takeover.statusCode()).isEqualTo(201);
        assertThat(woken.statusCode()).isEqualTo(201);
        assertThat(woken.body()).isEqualTo(takeover.body());
        assertThat(charges(order)).isEqualTo(1);
    }

    @Test
    void heartbeatsKeepTheLeaseAcrossAPaymentThreeTimesLongerThanTheLease() throws Exception {
        ServiceProcess first = service("heartbeat-first");
        ServiceProcess second = service("heartbeat-second");
        long order = createOrder(first);
        String key = UUID.randomUUID().toString();
        PROVIDER.faults("{\"latency\":\"PT9S\"}");

        CompletableFuture<HttpResponse<String>> slow = payAsync(first, order, key, false);
        awaitCharges(order, 1);
        Thread.sleep(Duration.parse("PT" + LEASE).multipliedBy(2));
        HttpResponse<String> whileRunning = pay(second, order, key, false);
        HttpResponse<String> finished = slow.get();
        HttpResponse<String> afterwards = pay(second, order, key, false);

        assertThat(whileRunning.statusCode()).as("no takeover of a renewed lease").isEqualTo(409);
        assertThat(finished.statusCode()).isEqualTo(201);
        assertThat(afterwards.body()).isEqualTo(finished.body());
        assertThat(charges(order)).isEqualTo(1);
    }

    @Test
    void retryingClientWhoseTimeoutIsShorterThanThePaymentGetsOneChargeAndTheFirstAnswer() throws Exception {
        ServiceProcess service = service("client-timeout");
        long order = createOrder(service);
        PROVIDER.faults("{\"latency\":\"PT4S\"}");
        RetryingHttpClient client = new RetryingHttpClient(http, ClientRetryPolicy.builder().maxAttempts(30)
                .deadline(Duration.ofSeconds(60)).build());
        HttpRequest request = HttpRequest.newBuilder(service.uri("/api/orders/" + order + "/payments"))
                .header("Authorization", BASIC).timeout(Duration.ofSeconds(1))
                .POST(HttpRequest.BodyPublishers.noBody()).build();

        CallResult<HttpResponse<String>> result = client.send(request, HttpResponse.BodyHandlers.ofString());

        assertThat(result.attempts()).as("the first attempt timed out").isGreaterThan(1);
        assertThat(result.response().statusCode()).isEqualTo(201);
        assertThat(result.replayed()).isTrue();
        assertThat(charges(order)).isEqualTo(1);
        HttpResponse<String> again = pay(service, order, Objects.requireNonNull(result.key()), false);
        assertThat(again.body()).isEqualTo(result.response().body());
    }

    @Test
    void connectionDroppedByTheProviderAfterItChargedEndsInOneCharge() throws Exception {
        ServiceProcess service = service("provider-drops");
        long order = createOrder(service);
        String key = UUID.randomUUID().toString();
        PROVIDER.faults("{\"failures\":[\"drop-after-commit\"]}");

        HttpResponse<String> settled = retryUntilSettled(service, order, key);

        assertThat(settled.statusCode()).isEqualTo(201);
        assertThat(charges(order)).isEqualTo(1);
        assertThat(orderStatus(service, order)).isEqualTo("PAID");
    }

    private long createOrder(ServiceProcess service) throws Exception {
        HttpResponse<String> created = send(HttpRequest.newBuilder(service.uri("/api/orders"))
                .header("Authorization", BASIC).header("Content-Type", "application/json")
                .header("Idempotency-Key", UUID.randomUUID().toString())
                .POST(HttpRequest.BodyPublishers.ofString("{\"skuId\": 42, \"quantity\": 2}")).build());
        assertThat(created.statusCode()).isEqualTo(201);
        return JSON.readTree(created.body()).get("orderId").asLong();
    }

    private HttpRequest payment(ServiceProcess service, long order, String key, boolean async) {
        HttpRequest.Builder request = HttpRequest.newBuilder(service.uri("/api/orders/" + order + "/payments"))
                .header("Authorization", BASIC).header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.noBody());
        if (async) {
            request.header("Prefer", "respond-async");
        }
        return request.build();
    }

    private HttpResponse<String> pay(ServiceProcess service, long order, String key, boolean async)
            throws Exception {
        return send(payment(service, order, key, async));
    }

    private CompletableFuture<HttpResponse<String>> payAsync(ServiceProcess service, long order, String key,
            boolean async) {
        return http.sendAsync(payment(service, order, key, async), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * Retries as a client does: while the earlier attempt's lease lasts it is told 409, then it takes over; a 503
     * (the provider still busy with the first call) is retried too.
     */
    private HttpResponse<String> retryUntilSettled(ServiceProcess service, long order, String key) {
        return await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                .until(() -> pay(service, order, key, false),
                        response -> response.statusCode() != 409 && response.statusCode() != 503);
    }

    private String orderStatus(ServiceProcess service, long order) throws Exception {
        HttpResponse<String> found = send(HttpRequest.newBuilder(service.uri("/api/orders/" + order))
                .header("Authorization", BASIC).build());
        return JSON.readTree(found.body()).get("status").asString();
    }

    private int charges(long order) throws Exception {
        return PROVIDER.charges(order).size();
    }

    private void awaitCharges(long order, int count) {
        await().atMost(Duration.ofSeconds(30)).until(() -> charges(order) == count);
    }

    /** Charges are made, then their answers held until the test clears the faults. */
    private static void holdCharges() throws Exception {
        PROVIDER.faults("{\"latency\":\"PT60S\"}");
    }

    private HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri).header("Authorization", BASIC).build());
    }

    private HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
