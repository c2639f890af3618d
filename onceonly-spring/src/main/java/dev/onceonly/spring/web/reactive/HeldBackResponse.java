package dev.onceonly.spring.web.reactive;

import dev.onceonly.spring.web.ProblemResponses;
import dev.onceonly.spring.web.internal.HeldBody;
import dev.onceonly.spring.web.internal.IdempotencyProtocol;
import dev.onceonly.spring.web.internal.StoredResponses;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ResponseCookie;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A reactive handler's response, held back until its outcome is settled: status, headers, cookies and body stay here
 * until {@link #sendToClient()}, and nothing reaches the client before (in transactional mode, before the commit).
 * A body beyond the bound is dropped and {@linkplain #overflowed() noted}, as the servlet buffer does; after
 * {@link #seal()} every write is.
 */
final class HeldBackResponse extends ServerHttpResponseDecorator implements IdempotencyProtocol.HeldResponse {

    private final HttpHeaders headers = new HttpHeaders();
    private final MultiValueMap<String, ResponseCookie> cookies = new LinkedMultiValueMap<>();
    private final HeldBody body;
    private final List<Supplier<? extends Mono<Void>>> beforeCommit = new CopyOnWriteArrayList<>();
    private volatile @Nullable HttpStatusCode status;

    HeldBackResponse(ServerHttpResponse response, long maxBytes) {
        super(response);
        this.body = new HeldBody(maxBytes);
    }

    @Override
    public boolean setStatusCode(@Nullable HttpStatusCode status) {
        this.status = status;
        return true;
    }

    @Override
    public boolean setRawStatusCode(@Nullable Integer value) {
        this.status = value == null ? null : HttpStatusCode.valueOf(value);
        return true;
    }

    @Override
    public @Nullable HttpStatusCode getStatusCode() {
        return status;
    }

    @Override
    public HttpHeaders getHeaders() {
        return headers;
    }

    @Override
    public MultiValueMap<String, ResponseCookie> getCookies() {
        return cookies;
    }

    @Override
    public void addCookie(ResponseCookie cookie) {
        cookies.add(cookie.getName(), cookie);
    }

    @Override
    public boolean isCommitted() {
        return false;
    }

    /** Held too: they run when the handler is done ({@link #commit()}), and what they write is the attempt's. */
    @Override
    public void beforeCommit(Supplier<? extends Mono<Void>> action) {
        beforeCommit.add(action);
    }

    /**
     * Runs the actions registered to run before the response commits (a session's save, a cookie), as the server
     * would when the handler's response is written, so that what they add is part of what is stored.
     */
    Mono<Void> commit() {
        return Flux.fromIterable(beforeCommit).concatMap(Supplier::get).then();
    }

    @Override
    public Mono<Void> writeWith(Publisher<? extends DataBuffer> content) {
        // Each buffer is consumed here and goes no further: then() would hand it to the discard hook that Spring's
        // writers install, a second release after its pool may have lent the instance to another request.
        return Flux.from(content).<Void>handle((buffer, next) -> {
            try {
                byte[] bytes = new byte[buffer.readableByteCount()];
                buffer.read(bytes);
                body.write(bytes, 0, bytes.length);
            } finally {
                DataBufferUtils.release(buffer);
            }
        }).then();
    }

    @Override
    public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> content) {
        return writeWith(Flux.from(content).concatMap(Flux::from));
    }

    @Override
    public Mono<Void> setComplete() {
        return Mono.empty();
    }

    /** Drops what the handler wrote: its body and the headers that describe it, for an error that replaces them. */
    void resetForError() {
        body.reset();
        StoredResponses.BODY_HEADERS.forEach(headers::remove);
        headers.remove(HttpHeaders.CONTENT_TYPE);
        headers.remove(HttpHeaders.CONTENT_LENGTH);
    }

    @Override
    public void seal() {
        body.seal();
    }

    @Override
    public boolean overflowed() {
        return body.overflowed();
    }

    @Override
    public int status() {
        HttpStatusCode held = status;
        return held != null ? held.value() : HttpStatus.OK.value();
    }

    @Override
    public @Nullable String contentType() {
        return headers.getFirst(HttpHeaders.CONTENT_TYPE);
    }

    /** The headers the handler set, by name in any letter case. */
    @Override
    public Map<String, List<String>> heldHeaders() {
        Map<String, List<String>> held = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.forEach(held::put);
        return held;
    }

    @Override
    public byte[] content() {
        return body.content();
    }

    /**
     * Writes what the handler wrote to the client's response, with the headers filters before ours set there: the
     * handler's replace them, but {@code Vary}, whose values are added (CORS's {@code Origin} stays).
     */
    Mono<Void> sendToClient() {
        ServerHttpResponse client = getDelegate();
        client.setStatusCode(HttpStatusCode.valueOf(status()));
        headers.forEach((name, values) -> {
            if (name.equalsIgnoreCase(HttpHeaders.VARY)) {
                values.forEach(value -> client.getHeaders().add(name, value));
            } else {
                client.getHeaders().put(name, values);
            }
        });
        cookies.values().forEach(list -> list.forEach(client::addCookie));
        return write(client, status(), content());
    }

    /** A problem as the whole response. */
    static Mono<Void> write(ServerHttpResponse response, ProblemResponses.Rendered problem) {
        response.setStatusCode(HttpStatusCode.valueOf(problem.status()));
        problem.headers().forEach(response.getHeaders()::set);
        return write(response, problem.status(), problem.body());
    }

    /** The body as the whole response; no {@code Content-Length} where the status allows no body. */
    static Mono<Void> write(ServerHttpResponse response, int status, byte[] body) {
        if (status == HttpStatus.NO_CONTENT.value() || status == HttpStatus.NOT_MODIFIED.value()) {
            return response.setComplete();
        }
        response.getHeaders().setContentLength(body.length);
        return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(body)));
    }
}
