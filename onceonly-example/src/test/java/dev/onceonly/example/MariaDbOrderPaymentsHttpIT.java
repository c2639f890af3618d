package dev.onceonly.example;

import org.springframework.test.context.TestPropertySource;

/** Paying orders on the local MariaDB, in a database of its own (its task table is this context's alone). */
@TestPropertySource(properties = {
    "spring.datasource.url=jdbc:mariadb://127.0.0.1:3306/onceonly_example_payments?createDatabaseIfNotExist=true",
    "spring.datasource.username=root"
})
class MariaDbOrderPaymentsHttpIT extends OrderPaymentsHttpContract {
}
