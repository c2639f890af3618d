package dev.onceonly.example;

import org.springframework.test.context.TestPropertySource;

/** Webhooks and debits on the local PostgreSQL, in the schema the orders tests use. */
@TestPropertySource(properties = {
    "spring.datasource.url=${onceonly.test.postgres.url:jdbc:postgresql://127.0.0.1:5432/test?user=postgres}"
            + "&currentSchema=onceonly_example",
    "spring.flyway.schemas=onceonly_example"
})
class PostgresPaymentsHttpIT extends PaymentsHttpContract {
}
