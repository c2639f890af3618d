package dev.onceonly.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKeyFormat;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotentResult;
import dev.onceonly.OutcomeCodec;
import dev.onceonly.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** The example of the "Without Spring Boot" page (snippets PlainJavaOrders), run against the real database. */
class PostgresReadmeExampleIT {

    record OrderCreated(long orderId) {
    }

    private final DataSource dataSource = TestDatabases.postgres();
    private final JdbcTemplate jdbc = new JdbcTemplate(dataSource);
    private final DataSourceTransactionManager transactionManager = new DataSourceTransactionManager(dataSource);

    private final OutcomeCodec<OrderCreated> orderCodec = OutcomeCodec.of(
            order -> StoredResponse.of(201, Long.toString(order.orderId()).getBytes(StandardCharsets.UTF_8)),
            stored -> new OrderCreated(Long.parseLong(stored.bodyAsString())));

    private OrderCreated createOrder(String owner) {
        jdbc.execute("CREATE TABLE IF NOT EXISTS onceonly_it_order (id bigserial PRIMARY KEY,"
                + " owner varchar(255) NOT NULL, sku bigint NOT NULL)");
        Long id = jdbc.queryForObject("INSERT INTO onceonly_it_order (owner, sku) VALUES (?, 1) RETURNING id",
                Long.class, owner);
        return new OrderCreated(id == null ? -1 : id);
    }

    @Test
    void exampleRunsOnceAndReplays() {
        String owner = "readme-" + UUID.randomUUID();
        String keyHeader = "\"" + UUID.randomUUID() + "\"";
        byte[] requestBody = "{\"skuId\": 1, \"quantity\": 2}".getBytes(StandardCharsets.UTF_8);

        JdbcSchema.migrate(dataSource, new PostgresDialect());
        JdbcIdempotencyStore store = JdbcIdempotencyStore.create(dataSource, new PostgresDialect());
        IdempotencyEngine engine = IdempotencyEngine.builder(store)
                .transactions(new SpringTransactionRunner(new TransactionTemplate(transactionManager)))
                .waitTimeout(Duration.ofSeconds(2))
                .build();
        IdempotencyScope scope = IdempotencyScope.of(owner, "create-order",
                IdempotencyKeyFormat.DEFAULT.parse(keyHeader));
        Fingerprint fingerprint = Fingerprint.builder().method("POST").route("/api/orders").jsonBody(requestBody)
                .build();

        IdempotentResult<OrderCreated> first = engine.execute(scope, fingerprint, orderCodec,
                attempt -> createOrder(owner));
        IdempotentResult<OrderCreated> retry = engine.execute(scope, fingerprint, orderCodec,
                attempt -> createOrder(owner));

        assertThat(first.replayed()).isFalse();
        assertThat(retry).isEqualTo(new IdempotentResult<>(first.value(), true));
        assertThat(jdbc.queryForObject("SELECT count(*) FROM onceonly_it_order WHERE owner = ?", Integer.class,
                owner)).isEqualTo(1);
    }
}
