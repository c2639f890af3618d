package dev.onceonly.spring.boot.web;

import dev.onceonly.internal.JsonStrings;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import org.springframework.http.HttpStatus;
import org.springframework.web.util.ContentCachingResponseWrapper;

/**
 * The handler's response, held back until the outcome is settled. An error sent with {@code sendError} is written
 * into the buffer as an RFC 9457 problem, and a redirect as its status and {@code Location}, instead of reaching
 * the container at once: the stored response is exactly what the first client gets, and nothing leaves before the
 * transaction committed. After either, the response is complete: further writes are dropped, as a container
 * would.
 */
final class BufferedResponse extends ContentCachingResponseWrapper {

    private boolean complete;

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
        super.getOutputStream().write(json.toString().getBytes(StandardCharsets.UTF_8));
        complete = true;
    }

    @Override
    public void sendRedirect(String location) {
        sendRedirect(location, HttpServletResponse.SC_FOUND, true);
    }

    @Override
    public void sendRedirect(String location, int status, boolean clearBuffer) {
        resetBuffer();
        setStatus(status);
        setHeader("Location", location);
        complete = true;
    }

    @Override
    public void setStatus(int status) {
        if (!complete) {
            super.setStatus(status);
        }
    }

    @Override
    public ServletOutputStream getOutputStream() throws IOException {
        return complete ? DISCARD : super.getOutputStream();
    }

    @Override
    public PrintWriter getWriter() throws IOException {
        return complete ? new PrintWriter(Writer.nullWriter()) : super.getWriter();
    }

    private static final ServletOutputStream DISCARD = new ServletOutputStream() {
        @Override
        public void write(int b) {
            // the response is complete
        }

        @Override
        public boolean isReady() {
            return true;
        }

        @Override
        public void setWriteListener(WriteListener listener) {
            throw new UnsupportedOperationException("the response is complete");
        }
    };
}
