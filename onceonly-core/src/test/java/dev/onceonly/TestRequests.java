package dev.onceonly;

import java.nio.charset.StandardCharsets;

/** The requests and text outcomes the engine's tests send and store. */
final class TestRequests {

    static final OutcomeCodec<String> TEXT = withStatus(201);

    private TestRequests() {
    }

    /** The fingerprint of a JSON order request for {@code sku}. */
    static Fingerprint request(String sku) {
        return Fingerprint.builder().method("POST").route("/orders")
                .jsonBody(("{\"sku\":\"" + sku + "\"}").getBytes(StandardCharsets.UTF_8)).build();
    }

    /** Text stored with {@code status}. */
    static OutcomeCodec<String> withStatus(int status) {
        return OutcomeCodec.of(result -> StoredResponse.of(status, result.getBytes(StandardCharsets.UTF_8)),
                StoredResponse::bodyAsString);
    }
}
