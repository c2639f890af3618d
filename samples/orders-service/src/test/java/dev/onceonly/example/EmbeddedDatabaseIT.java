package dev.onceonly.example;

import static org.assertj.core.api.Assertions.assertThat;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** The default the README's run command uses: no database configured, so the service starts its own PostgreSQL. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class EmbeddedDatabaseIT {

    @LocalServerPort
    int port;

    @Autowired
    EmbeddedPostgres embedded;

    @Test
    void servesIdempotentOrdersOnItsOwnDatabase() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest order = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/orders"))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                        "alice:alice-pass".getBytes(StandardCharsets.UTF_8)))
                .header("Idempotency-Key", UUID.randomUUID().toString())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"skuId\": 1, \"quantity\": 1}"))
                .build();

        HttpResponse<String> first = http.send(order, HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> retry = http.send(order, HttpResponse.BodyHandlers.ofString());

        assertThat(embedded.getPort()).isPositive();
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());
    }
}
