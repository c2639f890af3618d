package dev.onceonly.example;

import org.springframework.test.context.TestPropertySource;

/**
 * The same protocol with no wait: duplicates skip the in-process wait and meet the first request in the database
 * (its unique key and lock bound), as duplicates that reach different instances do.
 */
@TestPropertySource(properties = {
    "spring.datasource.url=${onceonly.test.postgres.url:jdbc:postgresql://127.0.0.1:5432/test?user=postgres}"
            + "&currentSchema=onceonly_example",
    "spring.flyway.schemas=onceonly_example",
    "onceonly.wait-timeout=0s"
})
class PostgresOrdersHttpWithoutWaitIT extends OrdersHttpContract {
}
