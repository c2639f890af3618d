package dev.onceonly.example;

import dev.onceonly.conformance.ConformanceTarget;
import dev.onceonly.conformance.IdempotencyKeyConformance;
import org.junit.jupiter.api.Nested;
import org.springframework.test.context.TestPropertySource;

/** Paying orders on the local PostgreSQL, in a schema of its own (its task table is this context's alone). */
@TestPropertySource(properties = {
    "spring.datasource.url=${onceonly.test.postgres.url:jdbc:postgresql://127.0.0.1:5432/test?user=postgres}"
            + "&currentSchema=onceonly_example_payments",
    "spring.flyway.schemas=onceonly_example_payments"
})
class PostgresOrderPaymentsHttpIT extends OrderPaymentsHttpContract {

    @Nested
    class Conformance extends IdempotencyKeyConformance {

        @Override
        protected ConformanceTarget target() {
            return conformanceTarget();
        }
    }
}
