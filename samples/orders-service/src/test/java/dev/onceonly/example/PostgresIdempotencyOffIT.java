package dev.onceonly.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.TestPropertySource;

/**
 * The service with OnceOnly switched off ({@code onceonly.enabled=false}), as the benchmark's baseline runs it: it
 * starts, and an order needs no Idempotency-Key.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@TestPropertySource(properties = {
    "spring.datasource.url=${onceonly.test.postgres.url:jdbc:postgresql://127.0.0.1:5432/test?user=postgres}"
            + "&currentSchema=onceonly_example",
    "spring.flyway.schemas=onceonly_example",
    "onceonly.enabled=false"
})
class PostgresIdempotencyOffIT {

    @LocalServerPort
    int port;

    @Test
    void ordersArePlacedWithoutAnIdempotencyKey() throws Exception {
        assertThat(new DemoClient(port).post("alice", "/api/orders", List.of(), "{\"skuId\": 42, \"quantity\": 1}")
                .statusCode()).isEqualTo(201);
    }
}
