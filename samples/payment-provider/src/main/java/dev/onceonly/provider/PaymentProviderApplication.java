package dev.onceonly.provider;

import java.time.Clock;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.annotation.Bean;

/**
 * The simulated payment provider. All state (charges, stored responses, events) lives in memory and is lost when
 * the process stops: it is a simulator, not a ledger.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class PaymentProviderApplication {

    public static void main(String[] args) {
        SpringApplication.run(PaymentProviderApplication.class, args);
    }

    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }
}
