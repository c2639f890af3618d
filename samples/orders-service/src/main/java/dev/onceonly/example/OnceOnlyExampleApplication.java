package dev.onceonly.example;

import java.time.Clock;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.annotation.Bean;

/**
 * The reference orders service: order creation and account debits idempotent under the Idempotency-Key protocol,
 * payment-provider webhooks deduplicated by event id.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class OnceOnlyExampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(OnceOnlyExampleApplication.class, args);
    }

    /** The service's one clock; OnceOnly's engine takes this bean too, so both agree on what "now" is. */
    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }
}
