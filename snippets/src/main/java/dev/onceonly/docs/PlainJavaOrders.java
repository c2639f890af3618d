package dev.onceonly.docs;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKeyFormat;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotentResult;
import dev.onceonly.OutcomeCodec;
import dev.onceonly.StoredResponse;
import dev.onceonly.jdbc.JdbcIdempotencyStore;
import dev.onceonly.jdbc.JdbcSchema;
import dev.onceonly.jdbc.PostgresDialect;
import dev.onceonly.jdbc.SpringTransactionRunner;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import javax.sql.DataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** orderService.place(owner, request), made idempotent with the engine alone. */
class PlainJavaOrders {

    private final IdempotencyEngine engine;
    private final OrderService orders;

    PlainJavaOrders(DataSource dataSource, PlatformTransactionManager transactionManager, OrderService orders) {
        JdbcSchema.migrate(dataSource, new PostgresDialect()); // or run the bundled SQL yourself
        JdbcIdempotencyStore store = JdbcIdempotencyStore.create(dataSource, new PostgresDialect());
        this.engine = IdempotencyEngine.builder(store)
                .transactions(new SpringTransactionRunner(new TransactionTemplate(transactionManager)))
                .waitTimeout(Duration.ofSeconds(2)) // a duplicate waits this long for the first
                .build();
        this.orders = orders;
    }

    /** What is stored and replayed of a result, and how a replay gets the result back. */
    private static final OutcomeCodec<Order> ORDER_CODEC = OutcomeCodec.of(
            order -> StoredResponse.of(201, Long.toString(order.id()).getBytes(StandardCharsets.UTF_8)),
            stored -> new Order(Long.parseLong(new String(stored.body(), StandardCharsets.UTF_8)), 0, 0));

    Order place(String owner, String keyHeader, CreateOrder request, byte[] requestBody) {
        IdempotencyScope scope = IdempotencyScope.of(owner, "create-order",
                IdempotencyKeyFormat.DEFAULT.parse(keyHeader));
        Fingerprint fingerprint = Fingerprint.builder().method("POST").route("/api/orders").jsonBody(requestBody)
                .build();
        IdempotentResult<Order> result = engine.execute(scope, fingerprint, ORDER_CODEC,
                attempt -> orders.place(owner, request)); // runs at most once per scope
        // result.replayed() is true when the work did not run this time
        return result.value(); // the fresh result, or the first attempt's, decoded from the store
    }
}
