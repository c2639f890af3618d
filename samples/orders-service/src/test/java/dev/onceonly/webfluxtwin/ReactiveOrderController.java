package dev.onceonly.webfluxtwin;

import dev.onceonly.example.orders.CreateOrderRequest;
import dev.onceonly.example.orders.Order;
import dev.onceonly.example.orders.OrderCreated;
import dev.onceonly.example.orders.OrderService;
import dev.onceonly.example.security.SecurityConfiguration;
import dev.onceonly.spring.web.Idempotent;
import jakarta.validation.Valid;
import java.net.URI;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.Authentication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The orders API, reactive. Creating an order runs where OnceOnly subscribes it, on the thread that holds its
 * transaction, so the order's insert joins it; the reads move their blocking JDBC calls off the event loop.
 */
@RestController
@RequestMapping("/api/orders")
class ReactiveOrderController {

    private static final int LIST_LIMIT = 100;

    private final OrderService orders;

    ReactiveOrderController(OrderService orders) {
        this.orders = orders;
    }

    @PostMapping
    @Idempotent("create-order")
    Mono<ResponseEntity<OrderCreated>> create(@Valid @RequestBody CreateOrderRequest request, Authentication user) {
        return Mono.fromCallable(() -> {
            Order order = orders.place(SecurityConfiguration.owner(user), request);
            return ResponseEntity.created(URI.create("/api/orders/" + order.orderId()))
                    .body(new OrderCreated(order.orderId(), order.orderNo(), order.status()));
        });
    }

    @GetMapping("/{orderId}")
    Mono<Order> get(@PathVariable long orderId, Authentication user) {
        return Mono.fromCallable(() -> orders.find(SecurityConfiguration.owner(user), orderId)
                .orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND)))
                .subscribeOn(Schedulers.boundedElastic());
    }

    @GetMapping
    Mono<List<Order>> list(Authentication user) {
        return Mono.fromCallable(() -> orders.list(SecurityConfiguration.owner(user), LIST_LIMIT))
                .subscribeOn(Schedulers.boundedElastic());
    }
}
