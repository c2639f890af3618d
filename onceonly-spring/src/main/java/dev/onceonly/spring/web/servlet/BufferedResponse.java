package dev.onceonly.spring.web.servlet;

import dev.onceonly.http.ResponseTooLargeException;
import dev.onceonly.spring.web.ProblemResponses;
import dev.onceonly.spring.web.internal.HeldBody;
import dev.onceonly.spring.web.internal.IdempotencyProtocol;
import dev.onceonly.spring.web.internal.StoredResponses;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.util.LinkedCaseInsensitiveMap;

/**
 * The handler's response, held back until the outcome is settled, up to a bound.
 *
 * <p>The body goes into a private buffer, not into a type other filters know (logging filters look for Spring's
 * {@code ContentCachingResponseWrapper} and copy it to the client): a filter ordered after ours writes into this
 * buffer, and its {@code flushBuffer()} or {@code flush()} commits nothing, so nothing leaves before the
 * transaction committed and the stored body is what the handler wrote. Only a filter that unwraps it on purpose
 * ({@code getResponse()}) could reach the container's response; Spring's filters wrap, they do not unwrap.
 *
 * <p>Status, headers, content type and cookies are held here too and reach the container's response only in
 * {@link #sendToClient()}: a response that fails (rolled back, too large, asynchronous) leaves no {@code Location}
 * of what did not happen on the error that answers it, and nothing needs undoing, so headers that filters before
 * ours set (CORS, security) stay. The handler reads its headers together with those (a {@code setHeader} of its own
 * replaces them, as on the container's response); {@link #heldHeaders()} are the handler's
 * alone, which is what is stored.
 *
 * <p>An error sent with {@code sendError} is written into the buffer as an RFC 9457 problem, and a redirect (every
 * {@code sendRedirect} overload) as its status and {@code Location}, instead of reaching the container at once.
 * After either, the response is complete: further writes are dropped, as a container would. A body over the
 * bound is not held: the write fails and {@link #checkWithinBound()} reports it. After {@link #seal()} every
 * write and header change is dropped.
 */
final class BufferedResponse extends HttpServletResponseWrapper implements IdempotencyProtocol.HeldResponse {

    private static final Pattern CHARSET = Pattern.compile(";\\s*charset=\"?([^;\"\\s]+)\"?",
            Pattern.CASE_INSENSITIVE);
    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'",
            Locale.US).withZone(ZoneOffset.UTC);

    private final ProblemResponses problems;
    private final HeldBody body;
    private final ServletOutputStream out = new BufferStream();
    private final Map<String, List<String>> headers = new LinkedCaseInsensitiveMap<>(Locale.ROOT);
    /** Headers the handler set rather than added to: they replace those of filters before ours. */
    private final Set<String> replaced = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
    private final List<Cookie> cookies = new ArrayList<>();
    private int status;
    private @Nullable String contentType;
    private @Nullable String characterEncoding;
    private @Nullable Locale locale;
    private @Nullable PrintWriter writer;
    private boolean complete;

    /**
     * @param problems writes the problem of {@code sendError}
     * @param bound the most body bytes held
     */
    BufferedResponse(HttpServletResponse response, ProblemResponses problems, long bound) {
        super(response);
        this.problems = problems;
        this.body = new HeldBody(bound);
        this.status = response.getStatus();
    }

    /**
     * The body written so far.
     *
     * @throws ResponseTooLargeException if the handler wrote more than the bound
     */
    @Override
    public byte[] content() {
        checkWithinBound();
        return body.content();
    }

    /** Flushes the writer first: up to its encoder's buffer of text only overflows the bound when it is flushed. */
    @Override
    public boolean overflowed() {
        if (writer != null) {
            writer.flush();
        }
        return body.overflowed();
    }

    /** @throws ResponseTooLargeException if the handler wrote more than the bound */
    void checkWithinBound() {
        if (overflowed()) {
            throw ResponseTooLargeException.of(body.bound());
        }
    }

    /** Whether the response takes no more changes: it is complete, or sealed. */
    private boolean closed() {
        return complete || body.sealed();
    }

    /** Drops every later write and header change, such as those of a handler's asynchronous thread. */
    @Override
    public void seal() {
        body.seal();
    }

    @Override
    public int status() {
        return status;
    }

    @Override
    public @Nullable String contentType() {
        return getContentType();
    }

    @Override
    public Map<String, List<String>> heldHeaders() {
        Map<String, List<String>> held = new LinkedCaseInsensitiveMap<>(Locale.ROOT);
        headers.forEach((name, values) -> held.put(name, List.copyOf(values)));
        return held;
    }

    /** Sends the held response to the client: status, headers, content type, cookies and body. */
    void sendToClient() throws IOException {
        byte[] content = content();
        HttpServletResponse client = (HttpServletResponse) getResponse();
        client.setStatus(status);
        headers.forEach((name, values) -> {
            for (int i = 0; i < values.size(); i++) {
                if (i == 0 && replaced.contains(name)) {
                    client.setHeader(name, values.getFirst());
                } else {
                    client.addHeader(name, values.get(i));
                }
            }
        });
        cookies.forEach(client::addCookie);
        if (contentType != null) {
            client.setContentType(getContentType());
        } else if (characterEncoding != null) {
            client.setCharacterEncoding(characterEncoding);
        }
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
        if (closed()) {
            return;
        }
        resetBuffer();
        // The problem replaces the body these described; kept, they would be stored and replayed with it (a gzip
        // label on plain JSON, the Location of what was never created, read as the resource id).
        StoredResponses.BODY_HEADERS.forEach(name -> {
            headers.remove(name);
            replaced.remove(name);
        });
        ServletAnswers.problem(this, problems.render(ProblemDetail.forStatus(HttpStatusCode.valueOf(status))));
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
        if (closed()) {
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
        if (!closed()) {
            this.status = status;
        }
    }

    @Override
    public int getStatus() {
        return status;
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

    /** Resets what the handler wrote; the container's response, with the headers of filters before ours, stays. */
    @Override
    public void reset() {
        if (closed()) {
            return;
        }
        resetBuffer();
        status = SC_OK;
        headers.clear();
        replaced.clear();
        cookies.clear();
        contentType = null;
        characterEncoding = null;
        locale = null;
    }

    @Override
    public void setContentType(@Nullable String type) {
        if (closed()) {
            return;
        }
        if (type == null) {
            contentType = null;
            return;
        }
        Matcher charset = CHARSET.matcher(type);
        if (charset.find()) {
            characterEncoding = charset.group(1);
            contentType = charset.replaceFirst("");
        } else {
            contentType = type;
        }
    }

    @Override
    public @Nullable String getContentType() {
        return contentType == null || characterEncoding == null ? contentType
                : contentType + ";charset=" + characterEncoding;
    }

    @Override
    public void setCharacterEncoding(@Nullable String charset) {
        if (!closed() && writer == null) {
            characterEncoding = charset;
        }
    }

    @Override
    public String getCharacterEncoding() {
        return characterEncoding != null ? characterEncoding : super.getCharacterEncoding();
    }

    @Override
    public void setLocale(Locale locale) {
        if (!closed()) {
            this.locale = locale;
            setHeader(HttpHeaders.CONTENT_LANGUAGE, locale.toLanguageTag());
        }
    }

    @Override
    public Locale getLocale() {
        return locale != null ? locale : super.getLocale();
    }

    @Override
    public void addCookie(Cookie cookie) {
        if (!closed()) {
            cookies.add(cookie);
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
        if (!holds(name, value)) {
            return;
        }
        headers.remove(name);
        replaced.add(name);
        if (value != null) {
            headers.put(name, new ArrayList<>(List.of(value)));
        }
    }

    @Override
    public void addHeader(String name, @Nullable String value) {
        if (value == null || !holds(name, value)) {
            return;
        }
        headers.computeIfAbsent(name, ignored -> new ArrayList<>()).add(value);
    }

    /**
     * Whether header {@code name} is held as such: the length is that of the held body, set when it is sent, and
     * the content type is held with its charset.
     */
    private boolean holds(String name, @Nullable String value) {
        if (body.sealed() || HttpHeaders.CONTENT_LENGTH.equalsIgnoreCase(name)) {
            return false;
        }
        if (HttpHeaders.CONTENT_TYPE.equalsIgnoreCase(name)) {
            setContentType(value);
            return false;
        }
        return true;
    }

    @Override
    public void setIntHeader(String name, int value) {
        setHeader(name, Integer.toString(value));
    }

    @Override
    public void addIntHeader(String name, int value) {
        addHeader(name, Integer.toString(value));
    }

    @Override
    public void setDateHeader(String name, long date) {
        setHeader(name, HTTP_DATE.format(Instant.ofEpochMilli(date)));
    }

    @Override
    public void addDateHeader(String name, long date) {
        addHeader(name, HTTP_DATE.format(Instant.ofEpochMilli(date)));
    }

    @Override
    public boolean containsHeader(String name) {
        return !getHeaders(name).isEmpty();
    }

    @Override
    public @Nullable String getHeader(String name) {
        Collection<String> values = getHeaders(name);
        return values.isEmpty() ? null : values.iterator().next();
    }

    /** The handler's values, after those of filters before ours unless the handler replaced them. */
    @Override
    public Collection<String> getHeaders(String name) {
        if (HttpHeaders.CONTENT_TYPE.equalsIgnoreCase(name)) {
            String type = getContentType();
            return type == null ? List.of() : List.of(type);
        }
        List<String> values = new ArrayList<>();
        if (!replaced.contains(name)) {
            values.addAll(super.getHeaders(name));
        }
        values.addAll(headers.getOrDefault(name, List.of()));
        return values;
    }

    @Override
    public Collection<String> getHeaderNames() {
        Set<String> names = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        names.addAll(super.getHeaderNames());
        names.addAll(headers.keySet());
        names.removeIf(name -> getHeaders(name).isEmpty());
        return names;
    }

    /**
     * Writes into {@link #body} up to the bound, and nothing once the response is complete;
     * {@code flush()} is {@link java.io.OutputStream}'s no-op.
     */
    private final class BufferStream extends ServletOutputStream {

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            if (!complete && !body.write(bytes, offset, length)) {
                throw new IOException("The response is larger than the " + body.bound()
                        + " bytes an idempotent response may hold");
            }
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
