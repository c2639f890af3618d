package dev.onceonly.webfluxtwin;

import dev.onceonly.example.orders.CreateOrderRequest;
import dev.onceonly.example.orders.Order;
import dev.onceonly.example.orders.OrderCreated;
import dev.onceonly.example.orders.OrderService;
import dev.onceonly.example.security.TenantUser;
import dev.onceonly.spring.boot.web.OnceOnlyWebFluxAutoConfiguration;
import java.net.URI;
import java.time.Duration;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.security.core.Authentication;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * What the WebFlux tests add to the twin: the store guard, a probe of the event loop, and orders created through a
 * router function, which is idempotent by path ({@code onceonly.http.endpoints}).
 */
@TestConfiguration(proxyBeanMethods = false)
public class ReactiveTestEndpoints {

    /** The request header that makes {@link #throwingFilter()} throw. */
    public static final String THROW_HEADER = "X-Test-Throw-In-Filter";

    @Bean
    EventLoopGuard eventLoopGuard() {
        return new EventLoopGuard();
    }

    /**
     * A filter inside the idempotent execution that throws from {@code filter} itself, rather than signalling an
     * error, on requests that ask for it ({@value #THROW_HEADER}).
     */
    @Bean
    ThrowingFilter throwingFilter() {
        return new ThrowingFilter();
    }

    static final class ThrowingFilter implements WebFilter, Ordered {

        @Override
        public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
            if (exchange.getRequest().getHeaders().containsHeader(THROW_HEADER)) {
                throw new IllegalStateException("the filter failed (injected by the test)");
            }
            return chain.filter(exchange);
        }

        @Override
        public int getOrder() {
            return OnceOnlyWebFluxAutoConfiguration.FILTER_ORDER + 1;
        }
    }

    @Bean
    RouterFunction<ServerResponse> routedOrders(OrderService orders) {
        return RouterFunctions.route()
                .GET("/probe/event-loop", request -> ServerResponse.ok()
                        .bodyValue(Boolean.toString(Schedulers.isInNonBlockingThread())))
                .POST("/api/routed-orders", request -> request.principal().cast(Authentication.class)
                        .zipWith(request.bodyToMono(CreateOrderRequest.class))
                        .map(userAndOrder -> orders.place(((TenantUser) userAndOrder.getT1().getPrincipal()).owner(),
                                userAndOrder.getT2()))
                        .flatMap(ReactiveTestEndpoints::created))
                // The fields as the handler reads them, from the form body OnceOnly already read.
                .POST("/api/form-orders", request -> request.principal().cast(Authentication.class)
                        .zipWith(request.formData())
                        .map(userAndForm -> orders.place(((TenantUser) userAndForm.getT1().getPrincipal()).owner(),
                                new CreateOrderRequest(Long.valueOf(userAndForm.getT2().getFirst("skuId")),
                                        Integer.valueOf(userAndForm.getT2().getFirst("quantity")))))
                        .flatMap(ReactiveTestEndpoints::created))
                // Slower than the client waits: the client goes away while it runs.
                .POST("/api/slow-orders", request -> request.principal().cast(Authentication.class)
                        .zipWith(request.bodyToMono(CreateOrderRequest.class))
                        .map(userAndOrder -> {
                            sleep(Duration.ofMillis(1500));
                            return orders.place(((TenantUser) userAndOrder.getT1().getPrincipal()).owner(),
                                    userAndOrder.getT2());
                        })
                        .flatMap(ReactiveTestEndpoints::created))
                // Moves its blocking insert to another scheduler, out of the transaction OnceOnly holds.
                .POST("/api/hopping-orders", request -> request.principal().cast(Authentication.class)
                        .zipWith(request.bodyToMono(CreateOrderRequest.class))
                        .publishOn(Schedulers.boundedElastic())
                        .map(userAndOrder -> orders.place(((TenantUser) userAndOrder.getT1().getPrincipal()).owner(),
                                userAndOrder.getT2()))
                        .flatMap(ReactiveTestEndpoints::created))
                .build();
    }

    private static void sleep(Duration time) {
        try {
            Thread.sleep(time);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while placing the order", e);
        }
    }

    private static Mono<ServerResponse> created(Order order) {
        return ServerResponse.created(URI.create("/api/orders/" + order.orderId()))
                .bodyValue(new OrderCreated(order.orderId(), order.orderNo(), order.status()));
    }
}
