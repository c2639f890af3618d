package dev.onceonly.spring.boot.web;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import reactor.core.publisher.Flux;

/** A reactive request whose body was read whole to fingerprint it, and is read again from memory by the handler. */
final class ReplayedBodyRequest extends ServerHttpRequestDecorator {

    private final byte[] body;

    ReplayedBodyRequest(ServerHttpRequest request, byte[] body) {
        super(request);
        this.body = body;
    }

    @Override
    public Flux<DataBuffer> getBody() {
        return body.length == 0 ? Flux.empty()
                : Flux.defer(() -> Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(body)));
    }
}
