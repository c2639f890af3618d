package dev.onceonly.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.TestPropertySource;

/**
 * The administrators' endpoint, {@code /actuator/onceonly}, through the real HTTP stack (Spring Security, Actuator)
 * on PostgreSQL with Redis in front: who may use it, and what an eviction does to every cache. Issue 12.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@TestPropertySource(properties = {
    "spring.datasource.url=${onceonly.test.postgres.url:jdbc:postgresql://127.0.0.1:5432/test?user=postgres}"
            + "&currentSchema=onceonly_example",
    "spring.flyway.schemas=onceonly_example"
})
class PostgresAdminEndpointIT {

    private static final String ORDER = "{\"skuId\": 42, \"quantity\": 2}";

    @LocalServerPort
    int port;

    @Autowired
    JdbcClient jdbc;

    private DemoClient client() {
        return new DemoClient(port);
    }

    private static String record(String key) {
        return "/actuator/onceonly?owner=" + encode("acme alice") + "&operation=create-order&key=" + encode(key);
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private int orders() {
        return jdbc.sql("SELECT count(*) FROM orders WHERE owner = 'acme alice'").query(Integer.class).single();
    }

    @Test
    void anonymousAndNonAdministratorUsersAreRefusedAndChangeNothing() throws Exception {
        String key = UUID.randomUUID().toString();
        client().post("alice", "/api/orders", List.of(key), ORDER);

        HttpResponse<byte[]> anonymous = client().getAnonymously(record(key));
        HttpResponse<byte[]> lookup = client().get("alice", record(key));
        HttpResponse<byte[]> eviction = client().delete("alice", record(key) + "&reason=mine");
        HttpResponse<byte[]> release = client().post("alice", "/actuator/onceonly", List.of(),
                "{\"owner\":\"acme alice\",\"operation\":\"create-order\",\"key\":\"" + key + "\",\"reason\":\"x\"}");

        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(lookup.statusCode()).isEqualTo(403);
        assertThat(eviction.statusCode()).isEqualTo(403);
        assertThat(release.statusCode()).isEqualTo(403);
        assertThat(DemoClient.text(lookup)).doesNotContain("SUCCEEDED")
                .contains("\"type\":\"https://onceonly.dev/problems/administrator-role-required\"");
        assertThat(lookup.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        HttpResponse<byte[]> retry = client().post("alice", "/api/orders", List.of(key), ORDER);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    }

    @Test
    void administratorLooksARecordUpAndListsItWithoutItsStoredBody() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<byte[]> created = client().post("alice", "/api/orders", List.of(key), ORDER);

        HttpResponse<byte[]> lookup = client().get("ops", record(key));
        HttpResponse<byte[]> listing = client().get("ops", "/actuator/onceonly?owner=" + encode("acme alice")
                + "&operation=create-order&limit=100");
        HttpResponse<byte[]> unknown = client().get("ops", record(UUID.randomUUID().toString()));
        HttpResponse<byte[]> badLimit = client().get("ops", "/actuator/onceonly?owner=x&operation=y&limit=1000");

        assertThat(lookup.statusCode()).isEqualTo(200);
        assertThat(DemoClient.text(lookup)).contains("\"key\":\"" + key + "\"", "\"state\":\"SUCCEEDED\"",
                "\"status\":201", "\"bodyBytes\":" + created.body().length)
                .doesNotContain("orderNo", "ORD-");
        assertThat(listing.statusCode()).isEqualTo(200);
        assertThat(DemoClient.text(listing)).contains("\"key\":\"" + key + "\"");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(badLimit.statusCode()).isEqualTo(400);
    }

    @Test
    void evictedRecordRunsAgainAndNoCacheReplaysIt() throws Exception {
        String key = UUID.randomUUID().toString();
        client().post("alice", "/api/orders", List.of(key), ORDER);
        // Replayed, so that this instance's memory and Redis hold the outcome now.
        assertThat(client().post("alice", "/api/orders", List.of(key), ORDER).headers()
                .firstValue("Idempotent-Replayed")).hasValue("true");
        int before = orders();

        HttpResponse<byte[]> eviction = client().delete("ops", record(key) + "&reason=" + encode("ticket 42"));
        HttpResponse<byte[]> again = client().post("alice", "/api/orders", List.of(key), ORDER);

        assertThat(eviction.statusCode()).isEqualTo(200);
        assertThat(DemoClient.text(eviction)).contains("\"found\":true", "\"cachesCleared\":true");
        assertThat(again.statusCode()).isEqualTo(201);
        assertThat(again.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(orders()).isEqualTo(before + 1);
        assertThat(client().delete("ops", record(UUID.randomUUID().toString()) + "&reason=none").statusCode())
                .isEqualTo(404);
        assertThat(client().delete("ops", record(key)).statusCode()).isEqualTo(400);
    }

    @Test
    void releasingARecordThatIsNotRunningIsAConflict() throws Exception {
        String key = UUID.randomUUID().toString();
        client().post("alice", "/api/orders", List.of(key), ORDER);

        HttpResponse<byte[]> release = client().post("ops", "/actuator/onceonly", List.of(),
                "{\"owner\":\"acme alice\",\"operation\":\"create-order\",\"key\":\"" + key
                        + "\",\"reason\":\"stuck?\"}");

        assertThat(release.statusCode()).isEqualTo(409);
        assertThat(DemoClient.text(release)).contains("NOT_PROCESSING");
    }
}
