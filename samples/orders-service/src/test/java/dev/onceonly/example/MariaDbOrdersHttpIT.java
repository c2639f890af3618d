package dev.onceonly.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.conformance.ConformanceTarget;
import dev.onceonly.conformance.IdempotencyKeyConformance;
import java.util.UUID;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.test.context.TestPropertySource;

/** The same HTTP protocol on the local MariaDB, selected by configuration alone. */
@TestPropertySource(properties = {
    "spring.datasource.url=jdbc:mariadb://127.0.0.1:3306/onceonly_example?createDatabaseIfNotExist=true",
    "spring.datasource.username=root"
})
@ExtendWith(OutputCaptureExtension.class)
class MariaDbOrdersHttpIT extends OrdersHttpContract {

    // Connector/J logged every error packet at WARN with the server's message, which quotes a duplicate's value.
    @Test
    void aDatabaseErrorsMessageIsNotLogged(CapturedOutput output) {
        String orderNo = "ORD-" + UUID.randomUUID().toString().substring(0, 8);
        String insert = "INSERT INTO orders (owner, order_no, sku_id, quantity, amount, currency, status, created_at)"
                + " VALUES ('log-test', ?, 1, 1, 1250, 'EUR', 'PENDING', NOW(6))";
        jdbc.sql(insert).param(orderNo).update();

        assertThatThrownBy(() -> jdbc.sql(insert).param(orderNo).update()).isInstanceOf(DuplicateKeyException.class);

        assertThat(output).doesNotContain(orderNo);
    }

    @Nested
    class Conformance extends IdempotencyKeyConformance {

        @Override
        protected ConformanceTarget target() {
            return conformanceTarget();
        }
    }
}
