package dev.onceonly.example.web;

import dev.onceonly.StoredResponse;
import org.springframework.http.ResponseEntity;

/** Answers a request with an outcome OnceOnly stored: status, headers and body as they are. */
public final class StoredResponses {

    /** The header that marks an answer as the stored outcome of an earlier request. */
    public static final String REPLAYED_HEADER = "Idempotent-Replayed";

    private StoredResponses() {
    }

    /** @param replayed whether to mark it with {@code Idempotent-Replayed: true} */
    public static ResponseEntity<byte[]> toEntity(StoredResponse stored, boolean replayed) {
        ResponseEntity.BodyBuilder response = ResponseEntity.status(stored.status());
        stored.headers().forEach((name, values) -> response.header(name, values.toArray(String[]::new)));
        if (replayed) {
            response.header(REPLAYED_HEADER, "true");
        }
        return response.body(stored.body());
    }
}
