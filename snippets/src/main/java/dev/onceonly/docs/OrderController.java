package dev.onceonly.docs;

import dev.onceonly.spring.web.Idempotent;
import jakarta.validation.Valid;
import java.net.URI;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.Authentication;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

@RestController
class OrderController {

    private final OrderService orders;

    OrderController(OrderService orders) {
        this.orders = orders;
    }

    @PostMapping("/api/orders")
    @Idempotent("create-order") // one order per user and Idempotency-Key; every retry gets the first answer
    ResponseEntity<Order> create(@Valid @RequestBody CreateOrder request, Authentication user) {
        Order order = orders.place(user.getName(), request); // inserts in the transaction that stores the answer
        return ResponseEntity.created(URI.create("/api/orders/" + order.id())).body(order);
    }
}
