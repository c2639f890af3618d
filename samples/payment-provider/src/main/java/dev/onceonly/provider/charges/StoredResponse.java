package dev.onceonly.provider.charges;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

/**
 * The answer kept for a key: status, content type and the body's exact bytes, so a replay equals the first answer
 * byte for byte. The array is never handed out to be changed.
 */
record StoredResponse(int status, MediaType contentType, byte[] body) {

    static final String REPLAYED_HEADER = "Idempotent-Replayed";

    ResponseEntity<byte[]> toResponse(boolean replayed) {
        ResponseEntity.BodyBuilder response = ResponseEntity.status(status).contentType(contentType);
        if (replayed) {
            response.header(REPLAYED_HEADER, "true");
        }
        return response.header(HttpHeaders.CACHE_CONTROL, "no-store").body(body.clone());
    }
}
