package dev.onceonly.example;

import dev.onceonly.conformance.ConformanceTarget;
import dev.onceonly.conformance.IdempotencyKeyConformance;
import org.junit.jupiter.api.Nested;
import org.springframework.test.context.TestPropertySource;

/** Paying orders on the local MariaDB, in a database of its own (its task table is this context's alone). */
@TestPropertySource(properties = {
    "spring.datasource.url=jdbc:mariadb://127.0.0.1:3306/onceonly_example_payments?createDatabaseIfNotExist=true",
    "spring.datasource.username=root"
})
class MariaDbOrderPaymentsHttpIT extends OrderPaymentsHttpContract {

    @Nested
    class Conformance extends IdempotencyKeyConformance {

        @Override
        protected ConformanceTarget target() {
            return conformanceTarget();
        }
    }
}
