package dev.onceonly.provider;

import static dev.onceonly.provider.ProviderClient.chargeBody;
import static dev.onceonly.provider.ProviderClient.newKey;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** Faults configured at startup apply to the first new charge requests. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "provider.failures=retryable,decline")
@Timeout(60)
class StartupFaultsIT {

    @LocalServerPort
    int port;

    @Test
    void failuresFromPropertiesMeetTheFirstRequests() throws Exception {
        ProviderClient provider = new ProviderClient(port);
        String reference = "order-" + UUID.randomUUID();

        int first = provider.charge(newKey(), chargeBody(100, reference)).statusCode();
        int second = provider.charge(newKey(), chargeBody(100, reference)).statusCode();
        int third = provider.charge(newKey(), chargeBody(100, reference)).statusCode();

        assertThat(first).isEqualTo(503);
        assertThat(second).isEqualTo(402);
        assertThat(third).isEqualTo(201);
    }
}
