package dev.onceonly.example.orders;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;
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

    /**
     * The demo's price list: every product costs 12.50 EUR. Migration V2 priced the orders placed before it the
     * same way.
     */
    static final long UNIT_PRICE = 1250;
    static final String CURRENCY = "EUR";

    private static final String SELECT = "SELECT id, order_no, sku_id, quantity, amount, currency, status, created_at"
            + " FROM orders";

    private final JdbcClient jdbc;
    private final OrderNumbers orderNumbers;
    private final ApplicationEventPublisher events;
    private final Clock clock;

    public OrderService(JdbcClient jdbc, OrderNumbers orderNumbers, ApplicationEventPublisher events, Clock clock) {
        this.jdbc = jdbc;
        this.orderNumbers = orderNumbers;
        this.events = events;
        this.clock = clock;
    }

    public Order place(String owner, CreateOrderRequest request) {
        String orderNo = orderNumbers.next();
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        long amount = request.quantity() * UNIT_PRICE;
        KeyHolder keys = new GeneratedKeyHolder();
        jdbc.sql("INSERT INTO orders (owner, order_no, sku_id, quantity, amount, currency, status, created_at)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
                .params(owner, orderNo, request.skuId(), request.quantity(), amount, CURRENCY,
                        OrderStatus.PENDING_PAYMENT.name(), Timestamp.from(now))
                .update(keys, "id");
        long id = Objects.requireNonNull(keys.getKeyAs(Number.class), "generated order id").longValue();
        Order order = new Order(id, orderNo, request.skuId(), request.quantity(), amount, CURRENCY,
                OrderStatus.PENDING_PAYMENT, now);
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

    /**
     * The order {@code orderId} whoever owns it, for events of the payment provider, which knows orders by id only.
     */
    public Optional<Order> findForPayment(long orderId) {
        return jdbc.sql(SELECT + " WHERE id = ?")
                .param(orderId)
                .query(OrderService::order)
                .optional();
    }

    /**
     * Moves the order from {@code from} to {@code to} if it still is in {@code from}: a compare-and-set, so of two
     * events racing for one transition exactly one moves the order.
     *
     * @return whether this call moved it
     * @throws IllegalArgumentException if the state machine does not allow the transition
     */
    public boolean transition(long orderId, OrderStatus from, OrderStatus to) {
        if (!from.allows(to)) {
            throw new IllegalArgumentException("an order never moves from " + from + " to " + to);
        }
        return jdbc.sql("UPDATE orders SET status = ? WHERE id = ? AND status = ?")
                .params(to.name(), orderId, from.name())
                .update() == 1;
    }

    /**
     * Binds the owner's order to the payment of {@code paymentKey}, its downstream key: the first payment of an
     * order that awaits payment binds it, and only that payment may charge for it from then on. A compare-and-set
     * in one statement, so of two payments racing under different keys exactly one binds the order.
     *
     * <p>An order already bound to this key counts as bound whatever its status: a retry or takeover of a payment
     * that charged and marked the order paid but could not store its answer goes on, and the provider replays the
     * charge under the same key.
     */
    public PaymentBinding bindPayment(String owner, long orderId, String paymentKey) {
        int bound = jdbc.sql("UPDATE orders SET payment_key = ? WHERE id = ? AND owner = ? AND status = ?"
                        + " AND (payment_key IS NULL OR payment_key = ?)")
                .params(paymentKey, orderId, owner, OrderStatus.PENDING_PAYMENT.name(), paymentKey)
                .update();
        if (bound == 1) {
            return PaymentBinding.BOUND;
        }
        return jdbc.sql("SELECT status, payment_key FROM orders WHERE id = ? AND owner = ?")
                .params(orderId, owner)
                .query((row, rowNum) -> {
                    String key = row.getString("payment_key");
                    if (paymentKey.equals(key)) {
                        return PaymentBinding.BOUND;
                    }
                    if (OrderStatus.valueOf(row.getString("status")) != OrderStatus.PENDING_PAYMENT) {
                        return PaymentBinding.NOT_PAYABLE;
                    }
                    return PaymentBinding.BOUND_TO_ANOTHER;
                })
                .optional()
                .orElse(PaymentBinding.NOT_FOUND);
    }

    /** Unbinds the order from the payment of {@code paymentKey} (a declined one), so another payment may bind it. */
    public void releasePayment(long orderId, String paymentKey) {
        jdbc.sql("UPDATE orders SET payment_key = NULL WHERE id = ? AND payment_key = ?")
                .params(orderId, paymentKey)
                .update();
    }

    private static Order order(ResultSet row, int rowNum) throws SQLException {
        return new Order(row.getLong("id"), row.getString("order_no"), row.getLong("sku_id"), row.getInt("quantity"),
                row.getLong("amount"), row.getString("currency"), OrderStatus.valueOf(row.getString("status")),
                row.getTimestamp("created_at").toInstant());
    }
}
