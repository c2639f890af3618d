package dev.onceonly.spring.boot.web;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;

/**
 * The handler's response, held back until the outcome is settled, up to a bound.
 *
 * <p>The body goes into a private buffer, not into a type other filters know (logging filters look for Spring's
 * {@code ContentCachingResponseWrapper} and copy it to the client): a filter ordered after ours writes into this
 * buffer, and its {@code flushBuffer()} or {@code flush()} commits nothing, so nothing leaves before the
 * transaction committed and the stored body is what the handler wrote. Headers go to the container's response,
 * which stays uncommitted until {@link #sendToClient()}. Only a filter that unwraps it on purpose
 * ({@code getResponse()}) could reach the container's response; Spring's filters wrap, they do not unwrap.
 *
 * <p>An error sent with {@code sendError} is written into the buffer as an RFC 9457 problem, and a redirect (every
 * {@code sendRedirect} overload) as its status and {@code Location}, instead of reaching the container at once.
 * After either, the response is complete: further writes are dropped, as a container would. A body over the
 * bound is not held: the write fails and {@link #checkWithinBound()} reports it.
 */
final class BufferedResponse extends HttpServletResponseWrapper {

    private final ProblemResponses problems;
    private final long bound;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private final ServletOutputStream out = new BufferStream();
    private @Nullable PrintWriter writer;
    private boolean complete;
    private boolean overflowed;

    /**
     * @param problems writes the problem of {@code sendError}
     * @param bound the most body bytes held
     */
    BufferedResponse(HttpServletResponse response, ProblemResponses problems, long bound) {
        super(response);
        this.problems = problems;
        this.bound = bound;
    }

    /** The body written so far. */
    byte[] content() {
        if (writer != null) {
            writer.flush();
        }
        return body.toByteArray();
    }

    /**
     * @throws ResponseTooLargeException if the handler wrote more than the bound
     */
    void checkWithinBound() {
        if (overflowed) {
            throw ResponseTooLargeException.of(bound);
        }
    }

    /** Sends the held response (its status and headers are already on the container's response) to the client. */
    void sendToClient() throws IOException {
        byte[] content = content();
        HttpServletResponse client = (HttpServletResponse) getResponse();
        client.setContentLength(content.length);
        client.getOutputStream().write(content);
    }

    @Override
    public void sendError(int status) throws IOException {
        sendError(status, null);
    }

    /** The message is not written: containers and frameworks put exception texts there. */
    @Override
    public void sendError(int status, @Nullable String message) throws IOException {
        if (complete) {
            return;
        }
        resetBuffer();
        problems.send(this, ProblemDetail.forStatus(HttpStatusCode.valueOf(status)));
        complete = true;
    }

    @Override
    public void sendRedirect(String location) {
        sendRedirect(location, SC_FOUND, true);
    }

    @Override
    public void sendRedirect(String location, int status) {
        sendRedirect(location, status, true);
    }

    @Override
    public void sendRedirect(String location, boolean clearBuffer) {
        sendRedirect(location, SC_FOUND, clearBuffer);
    }

    @Override
    public void sendRedirect(String location, int status, boolean clearBuffer) {
        if (complete) {
            return;
        }
        if (clearBuffer) {
            resetBuffer();
        }
        setStatus(status);
        setHeader(HttpHeaders.LOCATION, location);
        complete = true;
    }

    @Override
    public void setStatus(int status) {
        if (!complete) {
            super.setStatus(status);
        }
    }

    @Override
    public ServletOutputStream getOutputStream() {
        return out;
    }

    @Override
    public PrintWriter getWriter() {
        if (writer == null) {
            writer = new PrintWriter(new OutputStreamWriter(out, Charset.forName(getCharacterEncoding())));
        }
        return writer;
    }

    /** Does not commit: the response leaves only after the outcome is settled. */
    @Override
    public void flushBuffer() {
        if (writer != null) {
            writer.flush();
        }
    }

    /** Whether the response is complete (after an error or a redirect); nothing is sent before the outcome. */
    @Override
    public boolean isCommitted() {
        return complete;
    }

    @Override
    public void resetBuffer() {
        if (writer != null) {
            writer.flush();
        }
        body.reset();
    }

    @Override
    public void reset() {
        if (!complete) {
            super.reset();
            resetBuffer();
        }
    }

    /** The length is that of the held body, set when it is sent. */
    @Override
    public void setContentLength(int length) {
    }

    @Override
    public void setContentLengthLong(long length) {
    }

    @Override
    public void setHeader(String name, @Nullable String value) {
        if (!HttpHeaders.CONTENT_LENGTH.equalsIgnoreCase(name)) {
            super.setHeader(name, value);
        }
    }

    @Override
    public void addHeader(String name, @Nullable String value) {
        if (!HttpHeaders.CONTENT_LENGTH.equalsIgnoreCase(name)) {
            super.addHeader(name, value);
        }
    }

    @Override
    public void setIntHeader(String name, int value) {
        if (!HttpHeaders.CONTENT_LENGTH.equalsIgnoreCase(name)) {
            super.setIntHeader(name, value);
        }
    }

    @Override
    public void addIntHeader(String name, int value) {
        if (!HttpHeaders.CONTENT_LENGTH.equalsIgnoreCase(name)) {
            super.addIntHeader(name, value);
        }
    }

    /**
     * Writes into {@link #body} up to the bound, and nothing once the response is complete; {@code flush()} is
     * {@link java.io.OutputStream}'s no-op.
     */
    private final class BufferStream extends ServletOutputStream {

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            if (complete) {
                return;
            }
            if (overflowed || body.size() + (long) length > bound) {
                overflowed = true;
                body.reset();
                throw new IOException("The response is larger than the " + bound
                        + " bytes an idempotent response may hold");
            }
            body.write(bytes, offset, length);
        }

        @Override
        public boolean isReady() {
            return true;
        }

        @Override
        public void setWriteListener(WriteListener listener) {
            throw new UnsupportedOperationException("an idempotent response is written synchronously");
        }
    }
}
