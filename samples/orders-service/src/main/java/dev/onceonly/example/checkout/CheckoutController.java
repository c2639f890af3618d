package dev.onceonly.example.checkout;

import dev.onceonly.example.orders.CreateOrderRequest;
import dev.onceonly.example.orders.Order;
import dev.onceonly.example.orders.OrderCreated;
import dev.onceonly.example.orders.OrderService;
import dev.onceonly.example.security.SecurityConfiguration;
import dev.onceonly.spring.web.Idempotent;
import jakarta.validation.Valid;
import java.net.URI;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.Authentication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** What the checkout page ({@code /checkout.html}) calls. */
@RestController
@RequestMapping("/api/checkout")
class CheckoutController {

    private final CheckoutTokens tokens;
    private final OrderService orders;

    CheckoutController(CheckoutTokens tokens, OrderService orders) {
        this.tokens = tokens;
        this.orders = orders;
    }

    @GetMapping("/token")
    CheckoutToken token(Authentication user) {
        return tokens.issue(SecurityConfiguration.owner(user));
    }

    /** Places the order; the token is consumed in the same transaction, after the Idempotency-Key's replay. */
    @PostMapping
    @Idempotent("checkout")
    ResponseEntity<OrderCreated> checkout(@Valid @RequestBody CheckoutRequest request, Authentication user) {
        String owner = SecurityConfiguration.owner(user);
        tokens.consume(owner, request.formToken());
        Order order = orders.place(owner, new CreateOrderRequest(request.skuId(), request.quantity()));
        return ResponseEntity.created(URI.create("/api/orders/" + order.orderId()))
                .body(new OrderCreated(order.orderId(), order.orderNo(), order.status()));
    }
}
