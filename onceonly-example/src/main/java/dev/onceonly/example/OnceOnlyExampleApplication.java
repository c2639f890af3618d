package dev.onceonly.example;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** The reference orders service: an API whose order creation is idempotent under the Idempotency-Key protocol. */
@SpringBootApplication
@ConfigurationPropertiesScan
public class OnceOnlyExampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(OnceOnlyExampleApplication.class, args);
    }
}
