package dev.onceonly.provider;

import static dev.onceonly.provider.ProviderClient.JSON;
import static dev.onceonly.provider.ProviderClient.chargeBody;
import static dev.onceonly.provider.ProviderClient.json;
import static dev.onceonly.provider.ProviderClient.newKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/** Events reach a receiver at least once (here: twice), signed with the shared secret, retried on failures. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"provider.webhook-secret=" + WebhookDeliveryIT.SECRET, "provider.webhook-backoff=PT0.05S"})
@Timeout(60)
class WebhookDeliveryIT {

    static final String SECRET = "whsec-test-secret";

    /** What the receiver got: the signature header, the content type and the raw body. */
    record Delivery(String signature, String contentType, String body) {

        JsonNode event() {
            return JSON.readTree(body);
        }
    }

    static final List<Delivery> DELIVERIES = new CopyOnWriteArrayList<>();
    /** While positive, the receiver answers 500 and counts down. */
    static final AtomicInteger FAILURES_TO_ANSWER = new AtomicInteger();
    static final HttpServer RECEIVER = startReceiver();

    @LocalServerPort
    int port;

    ProviderClient provider;

    @DynamicPropertySource
    static void webhookUrl(DynamicPropertyRegistry registry) {
        registry.add("provider.webhook-url",
                () -> "http://127.0.0.1:" + RECEIVER.getAddress().getPort() + "/webhooks");
    }

    @AfterAll
    static void stopReceiver() {
        RECEIVER.stop(0);
    }

    @BeforeEach
    void clearFaults() throws Exception {
        provider = new ProviderClient(port);
        provider.clearFaults();
        FAILURES_TO_ANSWER.set(0);
    }

    @Test
    void succeededChargeIsDeliveredTwiceWithTheSameSignedEvent() throws Exception {
        String key = newKey();
        String reference = "order-" + UUID.randomUUID();
        String chargeId = json(provider.charge(key, chargeBody(4200, reference))).get("id").stringValue();

        List<Delivery> deliveries = awaitDeliveries(chargeId, 2);

        assertThat(deliveries.get(1).body()).isEqualTo(deliveries.get(0).body());
        for (Delivery delivery : deliveries) {
            assertThat(delivery.contentType()).isEqualTo("application/json");
            assertSignedWithTheSecret(delivery);
        }
        JsonNode event = deliveries.getFirst().event();
        assertThat(event.get("id").stringValue()).startsWith("evt_");
        assertThat(event.get("type").stringValue()).isEqualTo("payment.succeeded");
        assertThat(event.get("created").stringValue()).isNotBlank();
        JsonNode data = event.get("data");
        assertThat(data.get("reference").stringValue()).isEqualTo(reference);
        assertThat(data.get("amount").longValue()).isEqualTo(4200);
        assertThat(data.get("currency").stringValue()).isEqualTo("EUR");
        assertThat(data.get("key").stringValue()).isEqualTo(key);
        await().atMost(20, TimeUnit.SECONDS).untilAsserted(() -> assertThat(sentEvent(event.get("id").stringValue())
                .get("deliveries").intValue()).isEqualTo(2));
    }

    @Test
    void failedDeliveryAttemptsAreRetriedUntilDelivered() throws Exception {
        FAILURES_TO_ANSWER.set(2);

        String chargeId = json(provider.charge(newKey(), chargeBody(100, "order-" + UUID.randomUUID())))
                .get("id").stringValue();

        String eventId = awaitDeliveries(chargeId, 2).getFirst().event().get("id").stringValue();
        await().atMost(20, TimeUnit.SECONDS).untilAsserted(() -> {
            JsonNode sent = sentEvent(eventId);
            assertThat(sent.get("deliveries").intValue()).isEqualTo(2);
            assertThat(sent.get("failedAttempts").intValue()).isEqualTo(2);
        });
    }

    @Test
    void declineAndRefundAreAnnouncedToo() throws Exception {
        provider.setFaults("{\"failures\":[\"decline\"]}");
        String declinedId = json(provider.charge(newKey(), chargeBody(100, "order-" + UUID.randomUUID())))
                .get("chargeId").stringValue();
        String refundedId = json(provider.charge(newKey(), chargeBody(100, "order-" + UUID.randomUUID())))
                .get("id").stringValue();

        provider.post("/charges/" + refundedId + "/refunds");
        provider.post("/charges/" + refundedId + "/refunds");

        assertThat(awaitDeliveries(declinedId, 2)).extracting(delivery -> delivery.event().get("type").stringValue())
                .containsOnly("payment.declined");
        assertThat(awaitDeliveries(refundedId, 4)).extracting(delivery -> delivery.event().get("type").stringValue())
                .containsExactlyInAnyOrder("payment.succeeded", "payment.succeeded", "payment.refunded",
                        "payment.refunded");
        // The repeated refund announced nothing: the log holds one event per outcome.
        assertThat(provider.list("/admin/events")).filteredOn(
                event -> event.get("data").get("chargeId").stringValue().equals(refundedId))
                .extracting(event -> event.get("type").stringValue())
                .containsExactly("payment.succeeded", "payment.refunded");
    }

    @Test
    void redeliverSendsALoggedEventOnceMore() throws Exception {
        String chargeId = json(provider.charge(newKey(), chargeBody(100, "order-" + UUID.randomUUID())))
                .get("id").stringValue();
        String eventId = awaitDeliveries(chargeId, 2).getFirst().event().get("id").stringValue();

        HttpResponse<String> redeliver = provider.post("/admin/events/" + eventId + "/redeliver");
        HttpResponse<String> unknown = provider.post("/admin/events/evt_unknown/redeliver");

        assertThat(redeliver.statusCode()).isEqualTo(202);
        assertThat(awaitDeliveries(chargeId, 3)).allSatisfy(
                delivery -> assertThat(delivery.event().get("id").stringValue()).isEqualTo(eventId));
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(json(unknown).get("type").stringValue())
                .isEqualTo(ProviderClient.PROBLEMS + "event-not-found");
    }

    private static List<Delivery> awaitDeliveries(String chargeId, int count) {
        return await().atMost(20, TimeUnit.SECONDS).until(() -> DELIVERIES.stream()
                .filter(delivery -> delivery.event().get("data").get("chargeId").stringValue().equals(chargeId))
                .toList(), deliveries -> deliveries.size() >= count);
    }

    private JsonNode sentEvent(String eventId) throws Exception {
        return provider.list("/admin/events").stream()
                .filter(event -> event.get("id").stringValue().equals(eventId))
                .findFirst().orElseThrow();
    }

    private static void assertSignedWithTheSecret(Delivery delivery) throws Exception {
        String[] parts = delivery.signature().split(",");
        assertThat(parts).hasSize(2);
        assertThat(parts[0]).startsWith("t=");
        assertThat(parts[1]).startsWith("v1=");
        String timestamp = parts[0].substring(2);
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        String expected = HexFormat.of().formatHex(
                mac.doFinal((timestamp + "." + delivery.body()).getBytes(StandardCharsets.UTF_8)));
        assertThat(parts[1].substring(3)).isEqualTo(expected);
    }

    private static HttpServer startReceiver() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/webhooks", exchange -> {
                byte[] body = exchange.getRequestBody().readAllBytes();
                boolean fail = FAILURES_TO_ANSWER.getAndUpdate(left -> Math.max(0, left - 1)) > 0;
                if (!fail) {
                    DELIVERIES.add(new Delivery(exchange.getRequestHeaders().getFirst("Payment-Signature"),
                            exchange.getRequestHeaders().getFirst("Content-Type"),
                            new String(body, StandardCharsets.UTF_8)));
                }
                exchange.sendResponseHeaders(fail ? 500 : 204, -1);
                exchange.close();
            });
            server.start();
            return server;
        } catch (IOException unavailable) {
            throw new UncheckedIOException(unavailable);
        }
    }
}
