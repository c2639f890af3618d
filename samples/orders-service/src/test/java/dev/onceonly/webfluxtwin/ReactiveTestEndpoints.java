package dev.onceonly.webfluxtwin;

import dev.onceonly.example.orders.CreateOrderRequest;
import dev.onceonly.example.orders.Order;
import dev.onceonly.example.orders.OrderCreated;
import dev.onceonly.example.orders.OrderService;
import dev.onceonly.example.security.TenantUser;
import dev.onceonly.spring.boot.web.OnceOnlyWebFluxAutoConfiguration;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
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

    /** Holds {@code /api/slow-orders} in its handler until the test lets it go. */
    public static final HandlerGate SLOW_ORDERS = new HandlerGate();

    /** Tells a test that a handler runs, and keeps it running until the test releases it. */
    public static final class HandlerGate {

        private final Semaphore entered = new Semaphore(0);
        private volatile CountDownLatch release = new CountDownLatch(1);

        /** Closes the gate for the next handler. */
        public void close() {
            entered.drainPermits();
            release = new CountDownLatch(1);
        }

        /** Whether a handler entered within {@code time}. */
        public boolean awaitEntered(Duration time) throws InterruptedException {
            return entered.tryAcquire(time.toMillis(), TimeUnit.MILLISECONDS);
        }

        public void open() {
            release.countDown();
        }

        void pass() {
            entered.release();
            try {
                if (!release.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never released the handler");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while placing the order", e);
            }
        }
    }

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
                // Held until the test, whose client went away meanwhile, releases it
                .POST("/api/slow-orders", request -> request.principal().cast(Authentication.class)
                        .zipWith(request.bodyToMono(CreateOrderRequest.class))
                        .map(userAndOrder -> {
                            SLOW_ORDERS.pass();
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

    private static Mono<ServerResponse> created(Order order) {
        return ServerResponse.created(URI.create("/api/orders/" + order.orderId()))
                .bodyValue(new OrderCreated(order.orderId(), order.orderNo(), order.status()));
    }
}
