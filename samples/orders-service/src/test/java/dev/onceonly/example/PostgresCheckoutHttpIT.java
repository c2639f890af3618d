package dev.onceonly.example;

import org.springframework.test.context.TestPropertySource;

/** The checkout API on the local PostgreSQL with the shared Redis answering. */
@TestPropertySource(properties = {
    "spring.datasource.url=${onceonly.test.postgres.url:jdbc:postgresql://127.0.0.1:5432/test?user=postgres}"
            + "&currentSchema=onceonly_example",
    "spring.flyway.schemas=onceonly_example"
})
class PostgresCheckoutHttpIT extends CheckoutHttpContract {

    @Override
    protected boolean redisAnswers() {
        return true;
    }
}
