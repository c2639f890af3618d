package dev.onceonly.example.orders;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Service;

/**
 * Places and reads orders. Every read and write is scoped to the owner, so one user never sees another's orders.
 * Writes join the transaction of the idempotent request around them.
 */
@Service
public class OrderService {

    private static final String SELECT = "SELECT id, order_no, sku_id, quantity, status, created_at FROM orders";

    private final JdbcClient jdbc;
    private final OrderNumbers orderNumbers;
    private final ApplicationEventPublisher events;
    private final Clock clock = Clock.systemUTC();

    public OrderService(JdbcClient jdbc, OrderNumbers orderNumbers, ApplicationEventPublisher events) {
        this.jdbc = jdbc;
        this.orderNumbers = orderNumbers;
        this.events = events;
    }

    public Order place(String owner, CreateOrderRequest request) {
        String orderNo = orderNumbers.next();
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        KeyHolder keys = new GeneratedKeyHolder();
        jdbc.sql("INSERT INTO orders (owner, order_no, sku_id, quantity, status, created_at)"
                        + " VALUES (?, ?, ?, ?, ?, ?)")
                .params(owner, orderNo, request.skuId(), request.quantity(), OrderStatus.PENDING_PAYMENT.name(),
                        Timestamp.from(now))
                .update(keys, "id");
        long id = keys.getKeyAs(Number.class).longValue();
        Order order = new Order(id, orderNo, request.skuId(), request.quantity(), OrderStatus.PENDING_PAYMENT, now);
        events.publishEvent(new OrderPlaced(order, owner));
        return order;
    }

    public Optional<Order> find(String owner, long orderId) {
        return jdbc.sql(SELECT + " WHERE owner = ? AND id = ?")
                .params(owner, orderId)
                .query(OrderService::order)
                .optional();
    }

    /** The owner's latest orders, newest first. */
    public List<Order> list(String owner, int limit) {
        return jdbc.sql(SELECT + " WHERE owner = ? ORDER BY id DESC LIMIT ?")
                .params(owner, limit)
                .query(OrderService::order)
                .list();
    }

    private static Order order(ResultSet row, int rowNum) throws SQLException {
        return new Order(row.getLong("id"), row.getString("order_no"), row.getLong("sku_id"), row.getInt("quantity"),
                OrderStatus.valueOf(row.getString("status")), row.getTimestamp("created_at").toInstant());
    }
}
