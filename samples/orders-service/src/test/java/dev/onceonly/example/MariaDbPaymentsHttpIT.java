package dev.onceonly.example;

import org.springframework.test.context.TestPropertySource;

/** Webhooks and debits on the local MariaDB. */
@TestPropertySource(properties = {
    "spring.datasource.url=jdbc:mariadb://127.0.0.1:3306/onceonly_example?createDatabaseIfNotExist=true",
    "spring.datasource.username=root"
})
class MariaDbPaymentsHttpIT extends PaymentsHttpContract {
}
