package dev.onceonly.provider;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The provider's API over real HTTP, as the reference service calls it. */
final class ProviderClient {

    static final String PROBLEMS = "https://provider.example/problems/";
    static final JsonMapper JSON = JsonMapper.builder().build();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI base;

    ProviderClient(int port) {
        this.base = URI.create("http://127.0.0.1:" + port);
    }

    static String newKey() {
        return "key-" + UUID.randomUUID();
    }

    static String chargeBody(long amount, String reference) {
        return "{\"amount\":" + amount + ",\"currency\":\"EUR\",\"reference\":\"" + reference + "\"}";
    }

    HttpRequest chargeRequest(String key, String body) {
        return HttpRequest.newBuilder(base.resolve("/charges"))
                .header("Idempotency-Key", key)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }

    HttpResponse<String> charge(String key, String body) throws IOException, InterruptedException {
        return send(chargeRequest(key, body));
    }

    CompletableFuture<HttpResponse<String>> chargeAsync(String key, String body) {
        return http.sendAsync(chargeRequest(key, body), HttpResponse.BodyHandlers.ofString());
    }

    /** The charges made under {@code key}, as {@code GET /charges?key=} lists them. */
    List<JsonNode> chargesByKey(String key) throws IOException, InterruptedException {
        return list("/charges?key=" + key);
    }

    List<JsonNode> chargesByReference(String reference) throws IOException, InterruptedException {
        return list("/charges?reference=" + reference);
    }

    List<JsonNode> list(String path) throws IOException, InterruptedException {
        HttpResponse<String> response = get(path);
        if (response.statusCode() != 200) {
            throw new AssertionError("GET " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body()).valueStream().toList();
    }

    void setFaults(String plan) throws IOException, InterruptedException {
        HttpResponse<String> response = send(HttpRequest.newBuilder(base.resolve("/admin/faults"))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(plan)).build());
        if (response.statusCode() != 200) {
            throw new AssertionError("PUT /admin/faults answered " + response.statusCode() + ": " + response.body());
        }
    }

    HttpResponse<String> putFaults(String plan) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(base.resolve("/admin/faults"))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(plan)).build());
    }

    void clearFaults() throws IOException, InterruptedException {
        send(HttpRequest.newBuilder(base.resolve("/admin/faults")).DELETE().build());
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(base.resolve(path)).GET().build());
    }

    HttpResponse<String> post(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(base.resolve(path)).POST(HttpRequest.BodyPublishers.noBody()).build());
    }

    HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode json(HttpResponse<String> response) {
        return JSON.readTree(response.body());
    }
}
