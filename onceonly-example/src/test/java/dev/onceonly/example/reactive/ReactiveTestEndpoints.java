package dev.onceonly.example.reactive;

import dev.onceonly.example.orders.CreateOrderRequest;
import dev.onceonly.example.orders.Order;
import dev.onceonly.example.orders.OrderCreated;
import dev.onceonly.example.orders.OrderService;
import dev.onceonly.example.security.TenantUser;
import java.net.URI;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.security.core.Authentication;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * What the WebFlux tests add to the twin: the store guard, a probe of the event loop, and orders created through a
 * router function, which is idempotent by path ({@code onceonly.http.endpoints}).
 */
@TestConfiguration(proxyBeanMethods = false)
public class ReactiveTestEndpoints {

    @Bean
    EventLoopGuard eventLoopGuard() {
        return new EventLoopGuard();
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
                .build();
    }

    private static Mono<ServerResponse> created(Order order) {
        return ServerResponse.created(URI.create("/api/orders/" + order.orderId()))
                .bodyValue(new OrderCreated(order.orderId(), order.orderNo(), order.status()));
    }
}
