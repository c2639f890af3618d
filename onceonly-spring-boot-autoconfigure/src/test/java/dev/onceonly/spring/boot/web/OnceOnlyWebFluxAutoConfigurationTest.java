package dev.onceonly.spring.boot.web;

import static dev.onceonly.spring.boot.StartupFailure.assertStartupFailure;
import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.Attempt;
import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.web.Idempotent;
import dev.onceonly.spring.web.ResponseSnapshots;
import dev.onceonly.spring.web.reactive.ReactiveIdempotencyKeyFilter;
import dev.onceonly.spring.web.servlet.IdempotencyKeyFilter;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Service;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import reactor.core.publisher.Mono;

/**
 * The WebFlux protocol as the starter wires it, without a servlet API on the class path, with the in-memory store in
 * leased mode and anonymous owners; the full HTTP contract on Reactor Netty and PostgreSQL is the example's
 * {@code PostgresReactiveOrdersHttpIT}.
 */
class OnceOnlyWebFluxAutoConfigurationTest {

    private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(WebFluxAutoConfiguration.class, OnceOnlyAutoConfiguration.class,
                    OnceOnlyWebFluxAutoConfiguration.class))
            .withClassLoader(new FilteredClassLoader("jakarta.servlet", "org.springframework.security"))
            .withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
            .withPropertyValues("onceonly.mode=leased", "onceonly.http.allow-anonymous=true");

    @RestController
    static class Orders {

        final AtomicInteger created = new AtomicInteger();

        @PostMapping("/orders")
        @Idempotent("create-order")
        Mono<String> create(@RequestBody String order, Attempt attempt) {
            return Mono.fromSupplier(() -> "{\"order\":" + created.incrementAndGet() + ",\"attempt\":"
                    + attempt.number() + "}");
        }
    }

    @Service
    static class NotAHandler {

        @Idempotent
        public String place() {
            return "";
        }
    }

    @Test
    void theFilterRunsWithoutTheServletApiAndReplaysTheFirstResponse() {
        runner.withBean(Orders.class).run(context -> {
            // What is kept of a response is one bean, as on Spring MVC, which the filter stores by.
            assertThat(context).hasSingleBean(ReactiveIdempotencyKeyFilter.class)
                    .doesNotHaveBean(IdempotencyKeyFilter.class).hasSingleBean(ResponseSnapshots.class);
            WebTestClient client = client(context);
            String key = UUID.randomUUID().toString();

            String first = post(client, key, "{\"sku\": 1}").expectStatus().isOk()
                    .expectHeader().doesNotExist("Idempotent-Replayed")
                    .expectBody(String.class).returnResult().getResponseBody();
            post(client, key, "{ \"sku\" : 1 }").expectStatus().isOk()
                    .expectHeader().valueEquals("Idempotent-Replayed", "true")
                    .expectBody(String.class).isEqualTo(first);
            post(client, key, "{\"sku\": 2}").expectStatus().isEqualTo(422)
                    .expectHeader().contentType(MediaType.APPLICATION_PROBLEM_JSON)
                    .expectBody(String.class).value(body -> assertThat(body).contains("idempotency-key-reused"));

            assertThat(first).isEqualTo("{\"order\":1,\"attempt\":1}");
            assertThat(context.getBean(Orders.class).created).hasValue(1);
        });
    }

    @Test
    void badKeysBodiesAndMultipartAreRefusedWithProblems() {
        runner.withBean(Orders.class).run(context -> {
            WebTestClient client = client(context);

            client.post().uri("/orders").contentType(MediaType.APPLICATION_JSON).bodyValue("{}").exchange()
                    .expectStatus().isBadRequest().expectBody(String.class)
                    .value(body -> assertThat(body).contains("missing-idempotency-key"));
            post(client, UUID.randomUUID().toString(), "{\"sku\": 1, \"sku\": 2}").expectStatus().isBadRequest()
                    .expectBody(String.class).value(body -> assertThat(body).contains("malformed-request-body"));
            client.post().uri("/orders").header("Idempotency-Key", UUID.randomUUID().toString())
                    .contentType(MediaType.MULTIPART_FORM_DATA).bodyValue("--b--").exchange()
                    .expectStatus().isEqualTo(415).expectBody(String.class)
                    .value(body -> assertThat(body).contains("unsupported-multipart"));
            assertThat(context.getBean(Orders.class).created).hasValue(0);
        });
    }

    @RestController
    static class PlainOrders {

        @PostMapping("/orders")
        @Idempotent(value = "create-order", mode = dev.onceonly.IdempotencyMode.TRANSACTIONAL)
        String create(@RequestBody String order) {
            return order;
        }
    }

    @Test
    void aTransactionalHandlerThatVirtualThreadsWouldRunElsewhereStopsStartup() {
        runner.withBean(PlainOrders.class)
                .withBean(dev.onceonly.TransactionRunner.class, dev.onceonly.spring.boot.PassThroughTransactionRunner::new)
                .withPropertyValues("spring.threads.virtual.enabled=true")
                .run(context -> assertStartupFailure(context).hasMessageContaining("PlainOrders.create")
                        .hasMessageContaining("virtual thread"));
    }

    @Test
    void idempotentOnAMethodThatIsNoWebFluxHandlerStopsStartup() {
        runner.withBean(NotAHandler.class).run(context -> assertStartupFailure(context)
                .hasMessageContaining("not a WebFlux handler method").hasMessageContaining("@IdempotentMethod"));
    }

    @RestController
    static class OrderPages {

        @GetMapping("/orders")
        Mono<String> list() {
            return Mono.just("[]");
        }
    }

    /** Ordered before the default mapping, with only {@link OrderPages}: a POST to /orders is the wrong method here. */
    static class OrderPagesMapping extends RequestMappingHandlerMapping {

        OrderPagesMapping() {
            setOrder(-10);
        }

        @Override
        protected boolean isHandler(Class<?> beanType) {
            return beanType == OrderPages.class;
        }
    }

    // The lookup went on to the next mapping after one failed, so the annotated handler of a later mapping made the
    // request idempotent, and a missing key was answered 400 instead of the dispatcher's 405.
    @Test
    void aRequestThatAnEarlierMappingRefusesIsNotIdempotent() {
        runner.withBean(Orders.class).withBean(OrderPages.class).withBean(OrderPagesMapping.class).run(context -> {
            client(context).post().uri("/orders").contentType(MediaType.APPLICATION_JSON).bodyValue("{}").exchange()
                    .expectStatus().isEqualTo(405);
            assertThat(context.getBean(Orders.class).created).hasValue(0);
        });
    }

    private static WebTestClient client(ApplicationContext context) {
        return WebTestClient.bindToApplicationContext(context).build();
    }

    private static WebTestClient.ResponseSpec post(WebTestClient client, String key, String body) {
        return client.post().uri("/orders").header("Idempotency-Key", key).contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body).exchange();
    }
}
