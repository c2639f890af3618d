package dev.onceonly.docs;

import dev.onceonly.conformance.ConformanceTarget;
import dev.onceonly.conformance.IdempotencyKeyConformance;
import java.net.URI;

class OrdersConformanceIT extends IdempotencyKeyConformance {

    @Override
    protected ConformanceTarget target() {
        return ConformanceTarget.at(URI.create("http://127.0.0.1:8080"))
                // called once per case: an endpoint that acts once per resource makes a new one here
                .endpoint(() -> new ConformanceTarget.Endpoint("/api/orders",
                        "{\"skuId\":42,\"quantity\":2}", "{\"skuId\":43,\"quantity\":2}"))
                .authorization("Basic YWxpY2U6YWxpY2UtcGFzcw==")
                .build();
    }
}
