package dev.onceonly.example.orders;

import dev.onceonly.example.security.SecurityConfiguration;
import dev.onceonly.spring.web.Idempotent;
import jakarta.validation.Valid;
import java.net.URI;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.Authentication;
import org.springframework.web.ErrorResponseException;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** The orders API. Creating an order requires an {@code Idempotency-Key}; retries get the first answer. */
@RestController
@RequestMapping("/api/orders")
class OrderController {

    private static final int LIST_LIMIT = 100;

    private final OrderService orders;

    OrderController(OrderService orders) {
        this.orders = orders;
    }

    @PostMapping
    @Idempotent("create-order")
    ResponseEntity<OrderCreated> create(@Valid @RequestBody CreateOrderRequest request, Authentication user) {
        Order order = orders.place(SecurityConfiguration.owner(user), request);
        return ResponseEntity.created(URI.create("/api/orders/" + order.orderId()))
                .body(new OrderCreated(order.orderId(), order.orderNo(), order.status()));
    }

    @GetMapping("/{orderId}")
    Order get(@PathVariable long orderId, Authentication user) {
        return orders.find(SecurityConfiguration.owner(user), orderId)
                .orElseThrow(() -> new ErrorResponseException(HttpStatus.NOT_FOUND));
    }

    @GetMapping
    List<Order> list(Authentication user) {
        return orders.list(SecurityConfiguration.owner(user), LIST_LIMIT);
    }
}
