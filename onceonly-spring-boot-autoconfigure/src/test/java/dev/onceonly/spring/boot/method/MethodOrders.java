package dev.onceonly.spring.boot.method;

import dev.onceonly.Attempt;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.spring.method.IdempotencyKeyParam;
import dev.onceonly.spring.method.IdempotencyOwner;
import dev.onceonly.spring.method.IdempotentMethod;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/**
 * The seed article's {@code orderService.create(owner, key, request)}, once per mode: each call writes one order row
 * (the business effect the tests count) and answers with it.
 */
public class MethodOrders {

    public record CreateOrder(String sku, int quantity, @Nullable String note) {
    }

    public record OrderView(long id, String sku, int quantity, int attempt) {
    }

    public record ImportOrder(String requestId, String sku, int quantity) {
    }

    /** A rejection that is the call's final outcome. */
    public static class OutOfStockException extends RuntimeException {

        public OutOfStockException(String message) {
            super(message);
        }
    }

    static final int STOCK = 100;

    private final JdbcTemplate jdbc;
    private final AtomicInteger runs = new AtomicInteger();
    private final AtomicInteger failuresLeft = new AtomicInteger();
    private volatile Duration workTime = Duration.ZERO;

    public MethodOrders(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @Transactional
    @IdempotentMethod(value = "create-order-transactional", mode = IdempotencyMode.TRANSACTIONAL,
            finalExceptions = OutOfStockException.class)
    public OrderView createTransactional(@IdempotencyOwner String customer, @IdempotencyKeyParam String key,
            CreateOrder order) {
        return create(customer, key, order, 1);
    }

    @Transactional
    @IdempotentMethod(value = "create-order-leased", mode = IdempotencyMode.LEASED,
            finalExceptions = OutOfStockException.class, excludedFields = "/order/note")
    public OrderView createLeased(@IdempotencyOwner String customer, @IdempotencyKeyParam String key, CreateOrder order,
            @Nullable Attempt attempt) {
        return create(customer, key, order, attempt.number());
    }

    @IdempotentMethod(value = "create-order-joined", mode = IdempotencyMode.JOINED,
            finalExceptions = OutOfStockException.class)
    public OrderView createJoined(@IdempotencyOwner String customer, @IdempotencyKeyParam String key, CreateOrder order) {
        return create(customer, key, order, 1);
    }

    /** Writes its order, then answers with what Jackson cannot write. */
    @Transactional
    @IdempotentMethod(value = "export-order-transactional", mode = IdempotencyMode.TRANSACTIONAL)
    public Unwritable exportTransactional(@IdempotencyOwner String customer, @IdempotencyKeyParam String key) {
        create(customer, key, new CreateOrder("sku-export", 1, null), 1);
        return new Unwritable(key);
    }

    /** A result that Jackson cannot write: its one property fails. */
    public record Unwritable(String key) {

        public String getBroken() {
            throw new IllegalStateException("not serializable");
        }
    }

    @IdempotentMethod(key = "#command.requestId", owner = "'importer'")
    public OrderView importOrder(ImportOrder command) {
        return create("importer", command.requestId(), new CreateOrder(command.sku(), command.quantity(), null), 1);
    }

    private OrderView create(String customer, String key, CreateOrder order, int attempt) {
        runs.incrementAndGet();
        Long id = jdbc.queryForObject("insert into method_orders (customer, idempotency_key, sku, quantity) "
                + "values (?, ?, ?, ?) returning id", Long.class, customer, key, order.sku(), order.quantity());
        sleep();
        if (order.quantity() > STOCK) {
            throw new OutOfStockException("Only " + STOCK + " of " + order.sku() + " left");
        }
        if (failuresLeft.getAndDecrement() > 0) {
            throw new IllegalStateException("The warehouse did not answer");
        }
        return new OrderView(id, order.sku(), order.quantity(), attempt);
    }

    private void sleep() {
        try {
            Thread.sleep(workTime);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // Through the proxy, which has fields of its own: only methods reach the bean's.

    public int runs() {
        return runs.get();
    }

    /** How many of the next calls write their row and then fail, retryably. */
    public void failNext(int calls) {
        failuresLeft.set(calls);
    }

    public void workFor(Duration time) {
        workTime = time;
    }

    public int rows(String key) {
        return jdbc.queryForObject("select count(*) from method_orders where idempotency_key = ?", Integer.class,
                key);
    }
}
