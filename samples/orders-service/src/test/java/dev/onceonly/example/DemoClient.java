package dev.onceonly.example;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/** HTTP calls to one instance of the reference service as its demo users. */
final class DemoClient {

    private static final Map<String, String> PASSWORDS = Map.of("alice", "alice-pass", "bob", "bob-pass", "carol",
            "carol-pass", "ops", "ops-pass");

    private final int port;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    DemoClient(int port) {
        this.port = port;
    }

    /** A JSON POST with the given Idempotency-Key headers (none, one, or several). */
    HttpResponse<byte[]> post(String user, String path, List<String> keys, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path))
                .header("Authorization", basic(user))
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        keys.forEach(key -> request.header("Idempotency-Key", key));
        return http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    HttpResponse<byte[]> get(String user, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).header("Authorization", basic(user))
                .timeout(Duration.ofSeconds(60)).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    HttpResponse<byte[]> delete(String user, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).header("Authorization", basic(user))
                .timeout(Duration.ofSeconds(60)).DELETE().build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    /** A GET without credentials. */
    HttpResponse<byte[]> getAnonymously(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(60)).GET().build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    static String basic(String user) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + PASSWORDS.get(user))
                .getBytes(StandardCharsets.UTF_8));
    }

    static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }
}
