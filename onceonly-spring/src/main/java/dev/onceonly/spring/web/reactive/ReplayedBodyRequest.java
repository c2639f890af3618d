package dev.onceonly.spring.web.reactive;

import java.util.Map;
import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.codec.FormHttpMessageReader;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.util.MultiValueMap;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebExchangeDecorator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** A reactive request whose body was read whole to fingerprint it, and is read again from memory by the handler. */
final class ReplayedBodyRequest extends ServerHttpRequestDecorator {

    private static final ResolvableType FORM = ResolvableType.forClassWithGenerics(MultiValueMap.class,
            String.class, String.class);

    private final byte[] body;

    private ReplayedBodyRequest(ServerHttpRequest request, byte[] body) {
        super(request);
        this.body = body;
    }

    @Override
    public Flux<DataBuffer> getBody() {
        return body.length == 0 ? Flux.empty()
                : Flux.defer(() -> Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(body)));
    }

    /**
     * {@code exchange} with its body read from memory, its form data too: the server's exchange would read form
     * fields from the connection, which gave them to the fingerprint already.
     *
     * @param form whether the body is form fields, as its encoding says
     * @param maxBytes the most a form may hold, the request body's bound
     */
    static ServerWebExchange exchange(ServerWebExchange exchange, byte[] body, boolean form, long maxBytes) {
        ReplayedBodyRequest request = new ReplayedBodyRequest(exchange.getRequest(), body);
        ServerWebExchange forwarded = exchange.mutate().request(request).build();
        Mono<MultiValueMap<String, String>> fields;
        if (form) {
            FormHttpMessageReader reader = new FormHttpMessageReader();
            reader.setMaxInMemorySize((int) Math.min(maxBytes, Integer.MAX_VALUE - 8));
            fields = reader.readMono(FORM, request, Map.of()).cache();
        } else {
            fields = forwarded.getFormData();
        }
        return new ServerWebExchangeDecorator(forwarded) {
            @Override
            public Mono<MultiValueMap<String, String>> getFormData() {
                return fields;
            }
        };
    }
}
