package dev.onceonly.example;

import org.springframework.test.context.TestPropertySource;

/**
 * The HTTP protocol on the local PostgreSQL with Redis unreachable from the start (nothing listens on port 1): the
 * same contract, answered by the database alone.
 */
@TestPropertySource(properties = {
    "spring.datasource.url=${onceonly.test.postgres.url:jdbc:postgresql://127.0.0.1:5432/test?user=postgres}"
            + "&currentSchema=onceonly_example",
    "spring.flyway.schemas=onceonly_example",
    "spring.data.redis.port=1"
})
class PostgresOrdersHttpRedisUnreachableIT extends OrdersHttpContract {
}
