package dev.onceonly.example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.example.reactive.EventLoopGuard;
import dev.onceonly.example.reactive.ReactiveOrdersApplication;
import dev.onceonly.example.reactive.ReactiveTestEndpoints;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

/**
 * The orders API's HTTP contract, every case of it, on the service's WebFlux twin (Reactor Netty, reactive Spring
 * Security) against PostgreSQL; and no store call ever runs on the event loop.
 */
@SpringBootTest(classes = ReactiveOrdersApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.main.web-application-type=reactive",
            "spring.webflux.problemdetails.enabled=true",
            "spring.datasource.url=${onceonly.test.postgres.url:jdbc:postgresql://127.0.0.1:5432/test?user=postgres}"
                    + "&currentSchema=onceonly_example_reactive",
            "spring.flyway.schemas=onceonly_example_reactive",
            "onceonly.http.endpoints[0].path=/api/routed-orders",
            "onceonly.http.endpoints[0].operation=create-routed-order"
        })
@Import(ReactiveTestEndpoints.class)
class PostgresReactiveOrdersHttpIT extends OrdersHttpContract {

    private static final String ORDER = "{\"skuId\": 42, \"quantity\": 2}";

    @Autowired
    EventLoopGuard guard;

    @AfterEach
    void noStoreCallRanOnTheEventLoop() {
        assertThat(guard.violations()).isEmpty();
    }

    @Test
    void theGuardSeesTheEventLoopAndTheStoreRunsOffIt() throws Exception {
        HttpResponse<byte[]> probe = new DemoClient(port).get("alice", "/probe/event-loop");
        post("alice", List.of(UUID.randomUUID().toString()), ORDER);

        assertThat(new String(probe.body(), StandardCharsets.UTF_8)).isEqualTo("true");
        // The requests' calls ran on OnceOnly's scheduler; the other threads are its background tasks'.
        assertThat(guard.storeThreads()).anySatisfy(thread -> assertThat(thread).startsWith("onceonly-http-"))
                .noneSatisfy(thread -> assertThat(thread).startsWith("reactor-http"));
    }

    @Test
    void aRouterFunctionIsIdempotentByPath() throws Exception {
        String key = UUID.randomUUID().toString();
        DemoClient client = new DemoClient(port);

        HttpResponse<byte[]> first = client.post("alice", "/api/routed-orders", List.of(key), ORDER);
        HttpResponse<byte[]> retry = client.post("alice", "/api/routed-orders", List.of(key), ORDER);
        HttpResponse<byte[]> other = client.post("alice", "/api/routed-orders", List.of(key),
                "{\"skuId\": 43, \"quantity\": 2}");

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(other.statusCode()).isEqualTo(422);
    }
}
