package dev.onceonly.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spring.boot.OnceOnlyAutoConfiguration;
import dev.onceonly.spring.boot.method.OnceOnlyMethodAutoConfiguration;
import dev.onceonly.spring.method.IdempotencyKeyParam;
import dev.onceonly.spring.method.IdempotentMethod;
import dev.onceonly.spring.web.IdempotencyOwnerResolver;
import dev.onceonly.spring.web.Idempotent;
import dev.onceonly.spring.web.ResponseSnapshots;
import dev.onceonly.spring.web.servlet.IdempotencyKeyFilter;
import jakarta.servlet.Filter;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * What an {@link IdempotentMethod} call of a handler throws reaches its HTTP client as the protocol's problem, on
 * Spring MVC and WebFlux: a reused key is a 422 and a call still running a 409 with {@code Retry-After}, not a 500,
 * with a detail that speaks of a key, not of a header the call never had (issue 41). Inside an idempotent endpoint
 * the problem is not stored as the endpoint's outcome.
 */
class CallerProblemsTest {

    private static final String PROBLEMS = "https://onceonly.dev/problems/";

    private final WebApplicationContextRunner mvc = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(WebMvcAutoConfiguration.class, OnceOnlyAutoConfiguration.class,
                    OnceOnlyWebMvcAutoConfiguration.class, OnceOnlyMethodAutoConfiguration.class))
            .withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
            .withBean(IdempotencyOwnerResolver.class, () -> request -> "alice")
            .withBean(Payments.class)
            .withUserConfiguration(PaymentController.class)
            .withPropertyValues("onceonly.mode=leased", "onceonly.method.allow-anonymous=true");

    private final ReactiveWebApplicationContextRunner webFlux = new ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(WebFluxAutoConfiguration.class, OnceOnlyAutoConfiguration.class,
                    OnceOnlyWebFluxAutoConfiguration.class, OnceOnlyMethodAutoConfiguration.class))
            .withClassLoader(new FilteredClassLoader("jakarta.servlet", "org.springframework.security"))
            .withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
            .withBean(Payments.class)
            .withUserConfiguration(PaymentController.class)
            .withPropertyValues("onceonly.mode=leased", "onceonly.method.allow-anonymous=true",
                    "onceonly.http.allow-anonymous=true");

    public static class Payments {

        final AtomicInteger runs = new AtomicInteger();
        volatile CountDownLatch entered = new CountDownLatch(1);
        volatile CountDownLatch release = new CountDownLatch(0);

        @IdempotentMethod(value = "pay", waitTimeout = "50ms")
        public String pay(@IdempotencyKeyParam String key, long cents) throws InterruptedException {
            runs.incrementAndGet();
            entered.countDown();
            release.await(10, TimeUnit.SECONDS);
            return "paid " + cents;
        }

        public void hold(CountDownLatch latch) {
            entered = new CountDownLatch(1);
            release = latch;
        }

        public void awaitEntered() throws InterruptedException {
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        }

        public int runs() {
            return runs.get();
        }
    }

    @RestController
    static class PaymentController {

        private final Payments payments;

        PaymentController(Payments payments) {
            this.payments = payments;
        }

        @PostMapping("/pay")
        String pay(@RequestParam String key, @RequestParam long cents) throws InterruptedException {
            return payments.pay(key, cents);
        }

        @PostMapping("/checkout")
        @Idempotent("checkout")
        String checkout(@RequestParam String key, @RequestParam long cents) throws InterruptedException {
            return payments.pay(key, cents);
        }
    }

    @Test
    void onSpringMvcAReusedKeyOfACallIsA422Problem() {
        mvc.run(context -> {
            String key = UUID.randomUUID().toString();

            assertThat(send(context, pay(key, 100)).getStatus()).isEqualTo(200);
            MockHttpServletResponse reused = send(context, pay(key, 200));

            assertThat(reused.getStatus()).isEqualTo(422);
            assertThat(reused.getContentType()).isEqualTo("application/problem+json");
            assertThat(reused.getContentAsString()).contains(PROBLEMS + "idempotency-key-reused")
                    .contains("This idempotency key of operation 'pay'").doesNotContain("Idempotency-Key");
        });
    }

    @Test
    void onSpringMvcACallStillRunningIsA409WithRetryAfter() {
        mvc.run(context -> {
            Payments payments = context.getBean(Payments.class);
            String key = UUID.randomUUID().toString();
            CountDownLatch release = new CountDownLatch(1);
            payments.hold(release);
            CompletableFuture<MockHttpServletResponse> first = CompletableFuture.supplyAsync(() -> sendQuietly(
                    context, pay(key, 100)));
            payments.awaitEntered();

            MockHttpServletResponse duplicate = send(context, pay(key, 100));
            release.countDown();

            assertThat(duplicate.getStatus()).isEqualTo(409);
            assertThat(duplicate.getHeader("Retry-After")).isNotBlank();
            assertThat(duplicate.getContentAsString()).contains(PROBLEMS + "request-in-progress");
            assertThat(first.get(10, TimeUnit.SECONDS).getStatus()).isEqualTo(200);
        });
    }

    @Test
    void insideAnIdempotentEndpointTheCallsProblemIsAnsweredButNotStoredSoTheRetryRunsAgain() {
        mvc.run(context -> {
            Payments payments = context.getBean(Payments.class);
            String callKey = UUID.randomUUID().toString();
            String checkoutKey = UUID.randomUUID().toString();
            CountDownLatch release = new CountDownLatch(1);
            payments.hold(release);
            CompletableFuture<MockHttpServletResponse> first = CompletableFuture.supplyAsync(() -> sendQuietly(
                    context, pay(callKey, 100)));
            payments.awaitEntered();

            MockHttpServletResponse busy = send(context, post("/checkout").param("key", callKey)
                    .param("cents", "100").header("Idempotency-Key", checkoutKey));
            release.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS).getStatus()).isEqualTo(200);
            MockHttpServletResponse retry = send(context, post("/checkout").param("key", callKey)
                    .param("cents", "100").header("Idempotency-Key", checkoutKey));

            assertThat(busy.getStatus()).isEqualTo(409);
            assertThat(busy.getContentAsString()).contains(PROBLEMS + "request-in-progress");
            assertThat(retry.getStatus()).isEqualTo(200);
            assertThat(retry.getHeader(ResponseSnapshots.REPLAYED_HEADER)).isNull();
            assertThat(retry.getContentAsString()).isEqualTo("paid 100");
            assertThat(payments.runs()).isEqualTo(1);
        });
    }

    @Test
    void onWebFluxAReusedKeyOfACallIsA422AndACallStillRunningA409WithRetryAfter() {
        webFlux.run(context -> {
            assertThat(context).hasNotFailed();
            WebTestClient client = WebTestClient.bindToApplicationContext(context).build();
            Payments payments = context.getBean(Payments.class);
            String key = UUID.randomUUID().toString();

            client.post().uri("/pay?key={key}&cents=100", key).exchange().expectStatus().isOk();
            client.post().uri("/pay?key={key}&cents=200", key).exchange().expectStatus().isEqualTo(422)
                    .expectHeader().contentType("application/problem+json")
                    .expectBody(String.class).value(body -> assertThat(body)
                            .contains(PROBLEMS + "idempotency-key-reused").doesNotContain("Idempotency-Key"));

            String running = UUID.randomUUID().toString();
            CountDownLatch release = new CountDownLatch(1);
            payments.hold(release);
            CompletableFuture<Void> first = CompletableFuture.runAsync(() -> client.post()
                    .uri("/pay?key={key}&cents=100", running).exchange().expectStatus().isOk());
            payments.awaitEntered();
            client.post().uri("/pay?key={key}&cents=100", running).exchange().expectStatus().isEqualTo(409)
                    .expectHeader().exists("Retry-After")
                    .expectBody(String.class).value(body -> assertThat(body).contains(PROBLEMS + "request-in-progress"));
            release.countDown();
            first.get(10, TimeUnit.SECONDS);
        });
    }

    private static MockHttpServletRequestBuilder pay(String key, long cents) {
        return post("/pay").param("key", key).param("cents", Long.toString(cents));
    }

    private static MockHttpServletResponse send(ApplicationContext context, MockHttpServletRequestBuilder request)
            throws Exception {
        Filter filter = context.getBean(IdempotencyKeyFilter.class);
        MockMvc client = MockMvcBuilders.webAppContextSetup((org.springframework.web.context.WebApplicationContext)
                context).addFilters(filter).build();
        return client.perform(request).andReturn().getResponse();
    }

    private static MockHttpServletResponse sendQuietly(ApplicationContext context,
            MockHttpServletRequestBuilder request) {
        try {
            return send(context, request);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
