package dev.onceonly.spring.boot.method;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

/** An application with the order service, on the real PostgreSQL. */
@SpringBootConfiguration
@EnableAutoConfiguration
class MethodOrdersApplication {

    @Bean
    MethodOrders methodOrders(JdbcTemplate jdbc) {
        jdbc.execute("create table if not exists method_orders (id bigserial primary key, customer text not null, "
                + "idempotency_key text not null, sku text not null, quantity int not null)");
        return new MethodOrders(jdbc);
    }
}
