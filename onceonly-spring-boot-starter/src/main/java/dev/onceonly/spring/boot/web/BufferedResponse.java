package dev.onceonly.spring.boot.web;

import dev.onceonly.internal.JsonStrings;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.springframework.http.HttpStatus;
import org.springframework.web.util.ContentCachingResponseWrapper;

/**
 * The handler's response, held back until the outcome is settled. An error the handler sends with
 * {@code sendError} is written into the buffer as an RFC 9457 problem rather than passed to the container's
 * error page, so that the stored response is exactly what the first client got.
 */
final class BufferedResponse extends ContentCachingResponseWrapper {

    BufferedResponse(HttpServletResponse response) {
        super(response);
    }

    @Override
    public void sendError(int status) throws IOException {
        sendError(status, null);
    }

    @Override
    public void sendError(int status, String message) throws IOException {
        HttpStatus known = HttpStatus.resolve(status);
        String title = known != null ? known.getReasonPhrase() : "Error";
        resetBuffer();
        setStatus(status);
        setContentType("application/problem+json");
        StringBuilder json = new StringBuilder("{\"type\":\"about:blank\",\"title\":");
        JsonStrings.quote(title, json).append(",\"status\":").append(status).append('}');
        getOutputStream().write(json.toString().getBytes(StandardCharsets.UTF_8));
    }
}
