package dev.onceonly.jdbc;

import dev.onceonly.TransactionRunner;
import java.util.Objects;
import java.util.function.Supplier;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Runs the engine's transactional mode in a Spring-managed transaction, which {@link JdbcIdempotencyStore} and
 * the business code's {@code JdbcTemplate}, JPA or jOOQ calls on the same data source all join.
 */
public final class SpringTransactionRunner implements TransactionRunner {

    private final TransactionTemplate transactionTemplate;

    public SpringTransactionRunner(TransactionTemplate transactionTemplate) {
        this.transactionTemplate = Objects.requireNonNull(transactionTemplate, "transactionTemplate");
    }

    @Override
    public <T> T inTransaction(Supplier<T> work) {
        return transactionTemplate.execute(status -> work.get());
    }
}
