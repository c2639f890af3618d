package dev.onceonly.example;

import org.springframework.test.context.TestPropertySource;

/** The same HTTP protocol on the local MariaDB, selected by configuration alone. */
@TestPropertySource(properties = {
    "spring.datasource.url=jdbc:mariadb://127.0.0.1:3306/onceonly_example?createDatabaseIfNotExist=true",
    "spring.datasource.username=root"
})
class MariaDbOrdersHttpIT extends OrdersHttpContract {
}
