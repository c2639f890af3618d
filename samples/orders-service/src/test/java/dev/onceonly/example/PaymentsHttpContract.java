package dev.onceonly.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.onceonly.example.payments.PaymentsProperties;
import dev.onceonly.kafka.SharedKafkaBroker;
import dev.onceonly.kafka.outbox.OutboxRelay;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The payment provider's webhook and the account debit through the real HTTP stack against a real database, with
 * order events on (the events profile: the outbox relay and the idempotent consumer, on the shared in-JVM broker).
 * Each database's test class extends this once.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ActiveProfiles("events")
@Timeout(120)
abstract class PaymentsHttpContract {

    @DynamicPropertySource
    static void broker(DynamicPropertyRegistry registry) {
        registry.add("spring.kafka.bootstrap-servers", SharedKafkaBroker::bootstrapServers);
    }

    private static final String PROBLEMS = "https://onceonly.dev/problems/";
    private static final Map<String, String> PASSWORDS = Map.of("alice", "alice-pass", "carol", "carol-pass");

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    @Autowired
    PaymentsProperties payments;

    @Autowired
    Clock clock;

    @Autowired
    MeterRegistry meters;

    @Autowired
    KafkaTemplate<String, String> kafka;

    @Value("${onceonly.kafka.outbox.topic}")
    String eventsTopic;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    void sameEventThreeTimesPaysTheOrderOnceAndEveryDeliveryGetsTheFirstReceipt() throws Exception {
        long orderId = placeOrder();
        String event = event(newEventId(), "payment.succeeded", orderId, amountOf(orderId), "EUR");

        HttpResponse<byte[]> first = deliver(event);
        HttpResponse<byte[]> second = deliver(event);
        HttpResponse<byte[]> third = deliver(event);

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(text(first)).contains("\"outcome\":\"applied\"").contains("\"status\":\"PAID\"");
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(List.of(second, third)).allSatisfy(redelivery -> {
            assertThat(redelivery.statusCode()).isEqualTo(200);
            assertThat(redelivery.body()).isEqualTo(first.body());
            assertThat(redelivery.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        });
        assertThat(status(orderId)).isEqualTo("PAID");
        assertThat(historyRows(orderId)).isEqualTo(1);
        assertThat(outbox(orderId)).containsExactly("order.paid");
    }

    @Test
    void orderEventTravelsFromTheOutboxThroughKafkaAndIsRecordedOnceHoweverOftenItComes() throws Exception {
        long orderId = placeOrder();
        String event = event(newEventId(), "payment.succeeded", orderId, amountOf(orderId), "EUR");
        for (int i = 0; i < 3; i++) {
            assertThat(deliver(event).statusCode()).isEqualTo(200);
        }

        await().atMost(Duration.ofSeconds(60)).until(() -> notifications(orderId).size() == 1);
        Map<String, Object> row = jdbc.sql("SELECT event_id, published_at FROM payment_outbox WHERE aggregate_id = ?")
                .param(orderId).query().singleRow();
        assertThat(row.get("published_at")).isNotNull();
        assertThat(notifications(orderId)).containsExactly(row.get("event_id").toString());

        // The same record twice more, as a producer that retried (or a relay that ran twice) would send it.
        double duplicates = duplicatesDropped();
        String payload = jdbc.sql("SELECT payload FROM payment_outbox WHERE aggregate_id = ?").param(orderId)
                .query(String.class).single();
        for (int i = 0; i < 2; i++) {
            ProducerRecord<String, String> again = new ProducerRecord<>(eventsTopic, Long.toString(orderId), payload);
            again.headers().add(OutboxRelay.EVENT_ID_HEADER,
                    row.get("event_id").toString().getBytes(StandardCharsets.UTF_8));
            again.headers().add(OutboxRelay.EVENT_TYPE_HEADER, "order.paid".getBytes(StandardCharsets.UTF_8));
            kafka.send(again).join();
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> duplicatesDropped() >= duplicates + 2);
        assertThat(notifications(orderId)).hasSize(1);
    }

    @Test
    void eventLeftUnmarkedByARelayThatCrashedAfterSendingIsRepublishedAndStillRecordedOnce() throws Exception {
        long orderId = placeOrder();
        deliver(event(newEventId(), "payment.succeeded", orderId, amountOf(orderId), "EUR"));
        await().atMost(Duration.ofSeconds(60)).until(() -> notifications(orderId).size() == 1);
        double duplicates = duplicatesDropped();

        // What a relay that died between the broker's acknowledgement and its commit leaves behind.
        jdbc.sql("UPDATE payment_outbox SET published_at = NULL WHERE aggregate_id = ?").param(orderId).update();

        await().atMost(Duration.ofSeconds(60)).until(() -> duplicatesDropped() >= duplicates + 1);
        assertThat(jdbc.sql("SELECT count(*) FROM payment_outbox WHERE aggregate_id = ? AND published_at IS NULL")
                .param(orderId).query(Integer.class).single()).isZero();
        assertThat(notifications(orderId)).hasSize(1);
    }

    @Test
    void sameEventDeliveredConcurrentlyTakesEffectOnce() throws Exception {
        long orderId = placeOrder();
        String event = event(newEventId(), "payment.succeeded", orderId, amountOf(orderId), "EUR");

        List<HttpResponse<byte[]>> deliveries = ConcurrentRequests.send(20, i -> deliver(event));

        byte[] receipt = deliveries.stream().filter(r -> r.statusCode() == 200).findFirst().orElseThrow().body();
        assertThat(deliveries).allSatisfy(delivery -> {
            if (delivery.statusCode() == 200) {
                assertThat(delivery.body()).isEqualTo(receipt);
            } else {
                assertProblem(delivery, 409, "request-in-progress");
            }
        });
        assertThat(historyRows(orderId)).isEqualTo(1);
        assertThat(outbox(orderId)).containsExactly("order.paid");
    }

    @Test
    void twoPaymentsOfOneOrderRacingUnderDifferentIdsPayItOnce() throws Exception {
        long orderId = placeOrder();
        long amount = amountOf(orderId);
        List<String> events = List.of(event(newEventId(), "payment.succeeded", orderId, amount, "EUR"),
                event(newEventId(), "payment.succeeded", orderId, amount, "EUR"));

        List<HttpResponse<byte[]>> deliveries = ConcurrentRequests.send(2, i -> deliver(events.get(i)));

        assertThat(deliveries).extracting(HttpResponse::statusCode).containsOnly(200);
        assertThat(deliveries).extracting(PaymentsHttpContract::text)
                .filteredOn(body -> body.contains("\"outcome\":\"applied\"")).hasSize(1);
        assertThat(historyRows(orderId)).isEqualTo(1);
        assertThat(outbox(orderId)).containsExactly("order.paid");
    }

    @Test
    void paymentArrivingAfterItsRefundLeavesTheOrderRefundedAndWritesNothing() throws Exception {
        long orderId = placeOrder();
        long amount = amountOf(orderId);
        deliver(event(newEventId(), "payment.succeeded", orderId, amount, "EUR"));
        HttpResponse<byte[]> refund = deliver(event(newEventId(), "payment.refunded", orderId, amount, "EUR"));

        HttpResponse<byte[]> latePayment = deliver(event(newEventId(), "payment.succeeded", orderId, amount,
                "EUR"));

        assertThat(text(refund)).contains("\"outcome\":\"applied\"").contains("\"status\":\"REFUNDED\"");
        assertThat(latePayment.statusCode()).isEqualTo(200);
        assertThat(text(latePayment)).contains("\"outcome\":\"ignored\"").contains("\"status\":\"REFUNDED\"");
        assertThat(status(orderId)).isEqualTo("REFUNDED");
        assertThat(historyRows(orderId)).isEqualTo(2);
        assertThat(outbox(orderId)).containsExactly("order.paid", "order.refunded");
    }

    @Test
    void secondPaymentUnderAnotherEventIdIsIgnored() throws Exception {
        long orderId = placeOrder();
        long amount = amountOf(orderId);
        deliver(event(newEventId(), "payment.succeeded", orderId, amount, "EUR"));

        HttpResponse<byte[]> again = deliver(event(newEventId(), "payment.succeeded", orderId, amount, "EUR"));

        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(text(again)).contains("\"outcome\":\"ignored\"").contains("\"status\":\"PAID\"");
        assertThat(historyRows(orderId)).isEqualTo(1);
        assertThat(outbox(orderId)).containsExactly("order.paid");
    }

    @Test
    void declinedPaymentIsRecordedAndTheOrderStillAwaitsPayment() throws Exception {
        long orderId = placeOrder();

        HttpResponse<byte[]> declined = deliver(event(newEventId(), "payment.declined", orderId,
                amountOf(orderId), "EUR"));

        assertThat(declined.statusCode()).isEqualTo(200);
        assertThat(text(declined)).contains("\"outcome\":\"recorded\"");
        assertThat(status(orderId)).isEqualTo("PENDING_PAYMENT");
        assertThat(historyRows(orderId)).isEqualTo(1);
        assertThat(outbox(orderId)).isEmpty();
    }

    @Test
    void eventsForUnknownOrdersOrOtherAmountsAreAcknowledgedAndIgnored() throws Exception {
        long orderId = placeOrder();

        HttpResponse<byte[]> unknown = deliver(event(newEventId(), "payment.succeeded", 999_999_999_999L, 100,
                "EUR"));
        HttpResponse<byte[]> otherAmount = deliver(event(newEventId(), "payment.succeeded", orderId, 1, "EUR"));
        HttpResponse<byte[]> otherCurrency = deliver(event(newEventId(), "payment.succeeded", orderId,
                amountOf(orderId), "USD"));

        assertThat(List.of(unknown, otherAmount, otherCurrency)).allSatisfy(response -> {
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(text(response)).contains("\"outcome\":\"ignored\"");
        });
        assertThat(text(unknown)).contains("\"reason\":\"unknown-order\"");
        assertThat(status(orderId)).isEqualTo("PENDING_PAYMENT");
        assertThat(historyRows(orderId)).isZero();
    }

    @Test
    void wrongOrMissingSignatureIsA401ProblemAndChangesNothing() throws Exception {
        long orderId = placeOrder();
        String event = event(newEventId(), "payment.succeeded", orderId, amountOf(orderId), "EUR");
        long t = clock.instant().getEpochSecond();

        HttpResponse<byte[]> otherSecret = deliver(event, List.of("t=" + t + ",v1="
                + hmac("not_the_webhook_secret", t + "." + event)));
        HttpResponse<byte[]> otherBody = deliver(event, List.of(signature(event.replace("EUR", "USD"), t)));
        HttpResponse<byte[]> unsigned = deliver(event, List.of());

        assertProblem(otherSecret, 401, "invalid-payment-signature");
        assertProblem(otherBody, 401, "invalid-payment-signature");
        assertProblem(unsigned, 401, "invalid-payment-signature");
        assertThat(otherSecret.headers().firstValue("WWW-Authenticate")).hasValue("Payment-Signature");
        assertThat(status(orderId)).isEqualTo("PENDING_PAYMENT");
    }

    @Test
    void genuineSignatureWithAnExpiredTimestampIsA401Problem() throws Exception {
        long orderId = placeOrder();
        String event = event(newEventId(), "payment.succeeded", orderId, amountOf(orderId), "EUR");
        long sixMinutesAgo = clock.instant().minus(Duration.ofMinutes(6)).getEpochSecond();

        HttpResponse<byte[]> replayedLater = deliver(event, List.of(signature(event, sixMinutesAgo)));

        assertProblem(replayedLater, 401, "invalid-payment-signature");
        assertThat(text(replayedLater)).contains("tolerance");
        assertThat(status(orderId)).isEqualTo("PENDING_PAYMENT");
    }

    @Test
    void malformedSignatureHeaderIsA400Problem() throws Exception {
        String event = event(newEventId(), "payment.succeeded", 1, 100, "EUR");

        HttpResponse<byte[]> response = deliver(event, List.of("v1=" + "ab".repeat(32)));

        assertProblem(response, 400, "malformed-payment-signature");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "{", "not json", "[]", "null", "{\"id\": \"evt_0123456789abcdef\"}",
        "{\"id\":\"evt_0123456789abcdef\",\"type\":\"payment.succeeded\",\"created\":\"yesterday\","
            + "\"data\":{\"chargeId\":\"ch_1\",\"reference\":\"order-1\",\"amount\":100,\"currency\":\"EUR\"}}",
        "{\"id\":\"evt_0123456789abcdef\",\"type\":\"payment.succeeded\",\"created\":\"2026-12-01T10:00:00Z\","
            + "\"data\":{\"chargeId\":\"ch_1\",\"reference\":\"order-1\",\"amount\":1.5,\"currency\":\"EUR\"}}",
        "{\"id\":\"evt_0123456789abcdef\",\"type\":\"payment.succeeded\",\"created\":\"2026-12-01T10:00:00Z\","
            + "\"data\":{\"chargeId\":\"ch_1\",\"reference\":\"1\",\"amount\":100,\"currency\":\"EUR\"}}",
        "{\"id\":\"not-an-event-id\",\"type\":\"payment.succeeded\",\"created\":\"2026-12-01T10:00:00Z\","
            + "\"data\":{\"chargeId\":\"ch_1\",\"reference\":\"order-1\",\"amount\":100,\"currency\":\"EUR\"}}"})
    void signedBodyThatIsNoPaymentEventIsA400Problem(String body) throws Exception {
        HttpResponse<byte[]> response = deliver(body);

        assertProblem(response, 400, "malformed-payment-event");
        assertThat(text(response)).doesNotContain("\tat ");
    }

    @Test
    void knownEventIdWithAnotherBodyIsRefusedAndChangesNothing() throws Exception {
        long orderId = placeOrder();
        long amount = amountOf(orderId);
        String eventId = newEventId();
        deliver(event(eventId, "payment.declined", orderId, amount, "EUR"));

        HttpResponse<byte[]> other = deliver(event(eventId, "payment.succeeded", orderId, amount, "EUR"));

        assertProblem(other, 422, "idempotency-key-reused");
        assertThat(status(orderId)).isEqualTo("PENDING_PAYMENT");
        assertThat(historyRows(orderId)).isEqualTo(1);
    }

    @Test
    void sameKeyTwiceDebitsOnceAndTheRetryIsReplayed() throws Exception {
        long accountId = newAccount("acme", 10_000);
        String key = newKey();

        HttpResponse<byte[]> first = debit("alice", accountId, key, "{\"amount\": 2500, \"expectedVersion\": 0}");
        HttpResponse<byte[]> retry = debit("alice", accountId, key, "{\"expectedVersion\": 0, \"amount\": 2500}");

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(text(first)).contains("\"balance\":7500").contains("\"version\":1");
        assertThat(retry.statusCode()).isEqualTo(200);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(balance(accountId)).isEqualTo(7500);
    }

    @Test
    void staleVersionIsA409ProblemWithTheCurrentVersionAndDebitsNothing() throws Exception {
        long accountId = newAccount("acme", 10_000);
        debit("alice", accountId, newKey(), "{\"amount\": 100, \"expectedVersion\": 0}");

        HttpResponse<byte[]> stale = debit("alice", accountId, newKey(),
                "{\"amount\": 100, \"expectedVersion\": 0}");

        assertProblem(stale, 409, "stale-version");
        assertThat(text(stale)).contains("\"currentVersion\":1");
        assertThat(balance(accountId)).isEqualTo(9900);
    }

    @Test
    void sameKeyWithAnotherBodyIsRefusedWith422() throws Exception {
        long accountId = newAccount("acme", 10_000);
        String key = newKey();
        debit("alice", accountId, key, "{\"amount\": 100, \"expectedVersion\": 0}");

        HttpResponse<byte[]> reused = debit("alice", accountId, key, "{\"amount\": 100, \"expectedVersion\": 1}");

        assertProblem(reused, 422, "idempotency-key-reused");
        assertThat(balance(accountId)).isEqualTo(9900);
    }

    @Test
    void debitBeyondTheBalanceIsA422Problem() throws Exception {
        long accountId = newAccount("acme", 100);

        HttpResponse<byte[]> response = debit("alice", accountId, newKey(),
                "{\"amount\": 101, \"expectedVersion\": 0}");

        assertProblem(response, 422, "insufficient-funds");
        assertThat(balance(accountId)).isEqualTo(100);
    }

    @Test
    void accountOfAnotherTenantIsNotFound() throws Exception {
        long accountId = newAccount("acme", 10_000);

        HttpResponse<byte[]> response = debit("carol", accountId, newKey(),
                "{\"amount\": 1, \"expectedVersion\": 0}");

        assertProblem(response, 404, "account-not-found");
        assertThat(balance(accountId)).isEqualTo(10_000);
    }

    private long placeOrder() throws Exception {
        HttpResponse<byte[]> created = http.send(HttpRequest.newBuilder(uri("/api/orders"))
                .header("Authorization", basic("alice")).header("Idempotency-Key", newKey())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"skuId\": 7, \"quantity\": 3}")).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(created.statusCode()).isEqualTo(201);
        String location = created.headers().firstValue("Location").orElseThrow();
        return Long.parseLong(location.substring(location.lastIndexOf('/') + 1));
    }

    private long amountOf(long orderId) {
        return jdbc.sql("SELECT amount FROM orders WHERE id = ?").param(orderId).query(Long.class).single();
    }

    private String status(long orderId) {
        return jdbc.sql("SELECT status FROM orders WHERE id = ?").param(orderId).query(String.class).single();
    }

    private int historyRows(long orderId) {
        return jdbc.sql("SELECT count(*) FROM payment_events WHERE order_id = ?").param(orderId)
                .query(Integer.class).single();
    }

    /** The order's events, published or not: the relay runs in these tests. */
    private List<String> outbox(long orderId) {
        return jdbc.sql("SELECT event_type FROM payment_outbox WHERE aggregate_id = ? ORDER BY id").param(orderId)
                .query(String.class).list();
    }

    /** The event ids of the order's recorded notifications. */
    private List<String> notifications(long orderId) {
        return jdbc.sql("SELECT event_id FROM order_notifications WHERE order_id = ? ORDER BY id").param(orderId)
                .query(String.class).list();
    }

    private double duplicatesDropped() {
        Counter counter = meters.find("onceonly.inbox.messages").tag("consumer", "order-notifications")
                .tag("outcome", "duplicate").counter();
        return counter == null ? 0 : counter.count();
    }

    private long newAccount(String tenant, long balance) {
        long id = ThreadLocalRandom.current().nextLong(1_000_000, Long.MAX_VALUE / 2);
        jdbc.sql("INSERT INTO accounts (id, tenant, currency, balance, version) VALUES (?, ?, 'EUR', ?, 0)")
                .params(id, tenant, balance).update();
        return id;
    }

    private long balance(long accountId) {
        return jdbc.sql("SELECT balance FROM accounts WHERE id = ?").param(accountId).query(Long.class).single();
    }

    private static String event(String id, String type, long orderId, long amount, String currency) {
        return "{\"id\":\"" + id + "\",\"type\":\"" + type + "\",\"created\":\"" + Instant.now() + "\","
                + "\"data\":{\"chargeId\":\"ch_" + UUID.randomUUID().toString().replace("-", "") + "\","
                + "\"reference\":\"order-" + orderId + "\",\"amount\":" + amount + ",\"currency\":\"" + currency
                + "\",\"key\":\"" + UUID.randomUUID() + "\"}}";
    }

    private HttpResponse<byte[]> deliver(String body) throws Exception {
        return deliver(body, List.of(signature(body, clock.instant().getEpochSecond())));
    }

    private HttpResponse<byte[]> deliver(String body, List<String> signatures) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri("/api/webhooks/payments"))
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        signatures.forEach(signature -> request.header("Payment-Signature", signature));
        return http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private HttpResponse<byte[]> debit(String user, long accountId, String key, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(uri("/api/accounts/" + accountId + "/debit"))
                .header("Authorization", basic(user)).header("Idempotency-Key", key)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private String signature(String body, long t) throws Exception {
        return "t=" + t + ",v1=" + hmac(payments.webhookSecret(), t + "." + body);
    }

    private static String hmac(String secret, String signed) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return HexFormat.of().formatHex(mac.doFinal(signed.getBytes(StandardCharsets.UTF_8)));
    }

    private static void assertProblem(HttpResponse<byte[]> response, int status, String type) {
        assertThat(response.statusCode()).as(text(response)).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(text(response)).contains("\"type\":\"" + PROBLEMS + type + "\"").contains("\"status\":" + status)
                .doesNotContain("Exception");
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private static String basic(String user) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + PASSWORDS.get(user))
                .getBytes(StandardCharsets.UTF_8));
    }

    private static String newKey() {
        return UUID.randomUUID().toString();
    }

    private static String newEventId() {
        return "evt_" + UUID.randomUUID();
    }

    private static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }
}
