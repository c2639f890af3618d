package dev.onceonly.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The reference service while its database restarts (issue 39), on a PostgreSQL of the test's own: during the
 * outage an order is refused with 503 {@code idempotency-store-unavailable} and {@code Retry-After}, nothing run;
 * once the database is back the service recovers on its own, and the retry with the same key makes one order.
 */
@Timeout(180)
class DatabaseRestartHttpIT {

    private static final String ORDER = "{\"skuId\": 42, \"quantity\": 2}";

    @Test
    void ordersAreRefusedWith503DuringTheOutageAndTheRetryMakesOneOrderOnceTheDatabaseIsBack() throws Exception {
        Path data = Files.createTempDirectory("onceonly-http-restart");
        int port = freePort();
        EmbeddedPostgres postgres = start(data, port);
        try (InProcessInstance service = InProcessInstance.start("restarted-database", Map.of(
                "spring.datasource.url", "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres",
                // A down database fails a request quickly rather than after Hikari's default 30 s.
                "spring.datasource.hikari.connection-timeout", 500,
                "onceonly.cleanup.enabled", false,
                "onceonly.async.enabled", false))) {
            DemoClient client = new DemoClient(service.port());
            String before = UUID.randomUUID().toString();
            String during = UUID.randomUUID().toString();
            assertThat(client.post("alice", "/api/orders", List.of(before), ORDER).statusCode()).isEqualTo(201);

            postgres.close();
            HttpResponse<byte[]> refused = client.post("alice", "/api/orders", List.of(during), ORDER);
            postgres = start(data, port);
            HttpResponse<byte[]> recovered = await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .until(() -> client.post("alice", "/api/orders", List.of(during), ORDER),
                            response -> response.statusCode() != 503);
            HttpResponse<byte[]> replay = client.post("alice", "/api/orders", List.of(during), ORDER);

            assertThat(refused.statusCode()).as(DemoClient.text(refused)).isEqualTo(503);
            assertThat(DemoClient.text(refused)).contains("https://onceonly.dev/problems/idempotency-store-unavailable");
            assertThat(refused.headers().firstValue("Retry-After")).isPresent();
            assertThat(recovered.statusCode()).as(DemoClient.text(recovered)).isEqualTo(201);
            assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            assertThat(replay.body()).isEqualTo(recovered.body());
            JdbcClient jdbc = JdbcClient.create(postgres.getPostgresDatabase());
            assertThat(jdbc.sql("SELECT count(*) FROM orders").query(Integer.class).single())
                    .as("one order per key, none for the refused request").isEqualTo(2);
        } finally {
            postgres.close();
        }
    }

    /** The embedded server on {@code data}, which keeps its cluster between runs, so a second start is a restart. */
    private static EmbeddedPostgres start(Path data, int port) throws IOException {
        return EmbeddedPostgres.builder().setDataDirectory(data).setCleanDataDirectory(false).setPort(port).start();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
