package dev.onceonly.example;

import dev.onceonly.conformance.ConformanceTarget;
import dev.onceonly.conformance.IdempotencyKeyConformance;
import org.junit.jupiter.api.Nested;
import org.springframework.test.context.TestPropertySource;

/** The HTTP protocol on the local PostgreSQL, in a schema of its own. */
@TestPropertySource(properties = {
    "spring.datasource.url=${onceonly.test.postgres.url:jdbc:postgresql://127.0.0.1:5432/test?user=postgres}"
            + "&currentSchema=onceonly_example",
    "spring.flyway.schemas=onceonly_example"
})
class PostgresOrdersHttpIT extends OrdersHttpContract {

    @Nested
    class Conformance extends IdempotencyKeyConformance {

        @Override
        protected ConformanceTarget target() {
            return conformanceTarget();
        }
    }
}
