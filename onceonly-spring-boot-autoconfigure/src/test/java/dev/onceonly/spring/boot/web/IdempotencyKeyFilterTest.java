package dev.onceonly.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.StoredResponse;
import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spi.IdempotencyStore;
import dev.onceonly.spring.boot.IdempotencyStoreDecorator;
import dev.onceonly.spring.web.IdempotencyOwnerResolver;
import dev.onceonly.spring.web.Idempotent;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.TestPropertySource;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;
import org.springframework.web.util.ContentCachingResponseWrapper;
import org.springframework.web.util.WebUtils;

/**
 * The filter through a real embedded Tomcat and the real filter chain, on the in-memory store (leased mode: the
 * outcome is stored by {@code complete}, which the test store watches).
 */
@SpringBootTest(classes = IdempotencyKeyFilterTest.TestApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
            "onceonly.mode=leased",
            "onceonly.http.max-request-body=1KB",
            "onceonly.http.max-response-body=32KB",
            "onceonly.http.max-buffered-response=64KB",
            "onceonly.http.redacted-response-fields=/secret",
            "onceonly.http.endpoints[0].path=/streaming",
            "onceonly.replay-cache.time-to-live=0s"})
@Timeout(60)
class IdempotencyKeyFilterTest {

    private static final String PROBLEMS = "https://onceonly.dev/problems/";
    private static final String ORDER = "{\"sku\": 42, \"quantity\": 2}";

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void sameKeyAndBodyIsReplayedByteForByte() throws Exception {
        String key = newKey();

        HttpResponse<String> first = post("/orders", key, ORDER);
        HttpResponse<String> retry = post("/orders", key, "{\"quantity\":2,\"sku\":42}");

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
        assertThat(withoutSecret(retry.body())).isEqualTo(withoutSecret(first.body()));
    }

    // issue 8 (review): the replay's Vary replaced the one a filter before ours set, so caches keyed it differently
    @Test
    void replayVariesOnWhatTheFirstAnswerVariedOn() throws Exception {
        String key = newKey();

        HttpResponse<String> first = post("/orders", key, ORDER);
        HttpResponse<String> retry = post("/orders", key, ORDER);

        assertThat(varyTokens(first)).containsExactlyInAnyOrder("Origin", "Accept-Language");
        assertThat(varyTokens(retry)).containsExactlyInAnyOrderElementsOf(varyTokens(first));
    }

    private static List<String> varyTokens(HttpResponse<String> response) {
        return response.headers().allValues("Vary").stream().flatMap(value -> Arrays.stream(value.split(",")))
                .map(String::trim).distinct().toList();
    }

    @Test
    void sameKeyWithAnotherBodyIs422() throws Exception {
        String key = newKey();
        post("/orders", key, ORDER);

        HttpResponse<String> other = post("/orders", key, "{\"sku\": 43, \"quantity\": 2}");

        assertProblem(other, 422, "idempotency-key-reused");
    }

    @Test
    void duplicateOfARunningRequestIs409WithRetryAfter() throws Exception {
        String key = newKey();
        TestApplication.SLOW_ENTERED.set(new CountDownLatch(1));
        TestApplication.SLOW_RELEASE.set(new CountDownLatch(1));
        CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(() -> send(
                request("/slow", key, ORDER, "alice")));
        assertThat(TestApplication.SLOW_ENTERED.get().await(30, TimeUnit.SECONDS)).isTrue();

        HttpResponse<String> duplicate = post("/slow", key, ORDER);
        TestApplication.SLOW_RELEASE.get().countDown();

        assertProblem(duplicate, 409, "request-in-progress");
        assertThat(duplicate.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(first.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }

    @Test
    void bodyOverTheLimitIs413() throws Exception {
        HttpResponse<String> response = post("/orders", newKey(), "{\"sku\": \"" + "x".repeat(2000) + "\"}");

        assertProblem(response, 413, "request-body-too-large");
    }

    @Test
    void redactedFieldIsSentToTheFirstClientAndReplacedInTheReplay() throws Exception {
        Exchange exchange = twice("/orders");

        assertThat(exchange.first().body()).contains("\"secret\":\"s3cret\"");
        assertThat(exchange.retry().body()).contains("\"secret\":\"[REDACTED]\"").doesNotContain("s3cret");
    }

    @Test
    void responseOverTheStoredLimitReachesTheFirstClientAndIsReplayedWithoutItsBody() throws Exception {
        Exchange exchange = twice("/text?size=40000");

        assertThat(exchange.first().body()).hasSize(40000);
        assertThat(exchange.retry().statusCode()).isEqualTo(200);
        assertThat(exchange.retry().headers().firstValue("Idempotent-Body-Omitted")).hasValue("true");
        assertThat(exchange.retry().body()).isEmpty();
    }

    // Issue 8 (hardening)
    @Test
    void responseOverTheBufferBoundInLeasedModeIsAStored500AndTheHandlerNeverRunsAgain() throws Exception {
        int runs = TestApplication.TEXT_RUNS.get();

        Exchange exchange = twice("/text?size=100000");

        assertProblem(exchange.first(), 500, "response-too-large");
        assertProblem(exchange.retry(), 500, "response-too-large");
        assertThat(exchange.retry().headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(TestApplication.TEXT_RUNS.get() - runs).isEqualTo(1);
    }

    // Issue 8 (hardening)
    @Test
    void tooLargeProblemHasNoHandlerHeadersAndKeepsThoseOfFiltersBeforeOurs() throws Exception {
        HttpResponse<String> response = post("/text?size=100000", newKey(), ORDER);

        assertProblem(response, 500, "response-too-large");
        assertThat(response.headers().firstValue("X-Handler")).isEmpty();
        assertThat(response.headers().firstValue(TestApplication.BEFORE_HEADER)).hasValue("kept");
    }

    // Issue 8 (hardening)
    @Test
    void writerOverTheBufferBoundIsA500ProblemNeverAnEmpty200() throws Exception {
        // Most of the last 8 KiB stays in the writer's encoder until the response is captured.
        Exchange exchange = twice("/writer?size=66000");

        assertProblem(exchange.first(), 500, "response-too-large");
        assertProblem(exchange.retry(), 500, "response-too-large");
    }

    // Issue 8 (hardening)
    @Test
    void asynchronousThreadStillWritingCannotChangeTheStored500() throws Exception {
        TestApplication.STREAMING.set(new CountDownLatch(1));
        int runs = TestApplication.STREAMING_RUNS.get();

        Exchange exchange = twice("/streaming");

        assertProblem(exchange.first(), 500, "asynchronous-handler");
        assertThat(exchange.first().headers().firstValue("Location")).isEmpty();
        assertThat(exchange.first().headers().firstValue(TestApplication.BEFORE_HEADER)).hasValue("kept");
        assertProblem(exchange.retry(), 500, "asynchronous-handler");
        assertThat(exchange.retry().headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(exchange.retry().headers().firstValue("Location")).isEmpty();
        assertThat(TestApplication.STREAMING_RUNS.get() - runs).isEqualTo(1);
    }

    // Issue 8 (hardening)
    @Test
    void loggingFilterAfterOursThatCopiesAndFlushesSendsNothingBeforeTheOutcomeIsStored() throws Exception {
        Exchange exchange = twice("/logged/text?size=20000");

        assertThat(StoreWatch.COMMITTED_WHEN_STORED.get("logged-text")).isFalse();
        assertThat(exchange.first().body()).hasSize(20000);
        assertThat(exchange.retry().headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(exchange.retry().headers().firstValue("Idempotent-Body-Omitted")).isEmpty();
        assertThat(exchange.retry().body()).isEqualTo(exchange.first().body());
    }

    // Issue 8 (hardening)
    @Test
    void redirectWithAStatusIsHeldBackUntilTheOutcomeIsStored() throws Exception {
        Exchange exchange = twice("/redirect");

        assertThat(StoreWatch.COMMITTED_WHEN_STORED.get("redirect")).isFalse();
        assertThat(exchange.first().statusCode()).isEqualTo(303);
        assertThat(exchange.first().headers().firstValue("Location")).hasValue("/orders/7");
        assertThat(exchange.retry().statusCode()).isEqualTo(303);
        assertThat(exchange.retry().headers().firstValue("Idempotent-Replayed")).hasValue("true");
    }

    // Issue 8 (hardening)
    @Test
    void requestWithoutOwnerIs401WithAChallenge() throws Exception {
        HttpResponse<String> response = send(HttpRequest.newBuilder(uri("/orders"))
                .header("Idempotency-Key", newKey()).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(ORDER)).build());

        assertProblem(response, 401, "authentication-required");
        assertThat(response.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
    }

    // Issue 8 (hardening)
    @Test
    void ownerOverTheStoreLimitIs403NeverA500() throws Exception {
        HttpResponse<String> response = post("/orders", newKey(), ORDER, "u".repeat(300));

        assertProblem(response, 403, "owner-unresolvable");
        assertThat(response.body()).contains("300 characters");
    }

    // Issue 8 (hardening)
    @Test
    void blankOwnerAndFailingOwnerResolverAre403NeverA500() throws Exception {
        assertProblem(post("/orders", newKey(), ORDER, " "), 403, "owner-unresolvable");
        assertProblem(post("/orders", newKey(), ORDER, "fail"), 403, "owner-unresolvable");
    }

    @Test
    void twoOwnersWithOneKeyAreIndependent() throws Exception {
        String key = newKey();

        HttpResponse<String> alice = post("/orders", key, ORDER, "alice");
        HttpResponse<String> bob = post("/orders", key, ORDER, "bob");

        assertThat(bob.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(bob.headers().firstValue("Location")).isNotEqualTo(alice.headers().firstValue("Location"));
    }

    /** With anonymous requests allowed, they share one owner. */
    @Nested
    @TestPropertySource(properties = "onceonly.http.allow-anonymous=true")
    class AnonymousAllowed {

        // Issue 8 (hardening)
        @Test
        void principalCalledAnonymousNeverSharesTheAnonymousOwner() throws Exception {
            String key = newKey();
            HttpResponse<String> anonymous = send(HttpRequest.newBuilder(uri("/orders"))
                    .header("Idempotency-Key", key).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(ORDER)).build());

            HttpResponse<String> named = post("/orders", key, ORDER, "anonymous");

            assertThat(anonymous.statusCode()).isEqualTo(201);
            assertThat(named.statusCode()).isEqualTo(201);
            assertThat(named.headers().firstValue("Idempotent-Replayed")).isEmpty();
            assertThat(named.headers().firstValue("Location")).isNotEqualTo(anonymous.headers().firstValue("Location"));
        }
    }

    /** Keys stored only as their HMAC: requests behave as before, and no trace holds the key. Issue 12 (privacy). */
    @Nested
    @TestPropertySource(properties = {"onceonly.key.storage=digest",
        "onceonly.key.digest-secret=test-secret-of-at-least-32-bytes!"})
    class DigestKeys {

        private final ListAppender<ILoggingEvent> events = new ListAppender<>();
        private final Logger logger = (Logger) LoggerFactory.getLogger("dev.onceonly");

        @Autowired
        IdempotencyEngine engine;

        @Autowired
        InMemoryIdempotencyStore store;

        @BeforeEach
        void captureLogs() {
            logger.setLevel(Level.DEBUG);
            events.start();
            logger.addAppender(events);
        }

        @AfterEach
        void detach() {
            logger.detachAppender(events);
            logger.setLevel(null);
        }

        @Test
        void digestOnlyReplaysRefusesAndLeavesTheKeyNowhere() throws Exception {
            String key = "customer-4711-" + newKey();

            HttpResponse<String> first = post("/orders", key, ORDER);
            HttpResponse<String> retry = post("/orders", key, ORDER);
            HttpResponse<String> reused = post("/orders", key, "{\"sku\": 43}");

            assertThat(first.statusCode()).isEqualTo(201);
            assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            assertProblem(reused, 422, "idempotency-key-reused");
            assertThat(reused.body()).doesNotContain(key).doesNotContain("sha256:");
            IdempotencyScope scope = IdempotencyScope.of("alice", "create-order", IdempotencyKey.of(key));
            assertThat(store.find(scope)).isEmpty();
            assertThat(engine.find(scope)).map(record -> record.scope().key().value())
                    .hasValueSatisfying(stored -> assertThat(stored).startsWith("hmac-sha256:"));
            assertThat(events.list).anySatisfy(event -> assertThat(event.getMDCPropertyMap())
                    .hasEntrySatisfying("onceonly.key", stored -> assertThat(stored).startsWith("hmac-sha256:")));
            assertThat(events.list).allSatisfy(event -> {
                assertThat(event.getFormattedMessage()).doesNotContain(key);
                assertThat(event.getMDCPropertyMap().values()).noneMatch(value -> value.contains(key));
            });
        }
    }

    /** With encryption at rest on (issue 12). */
    @Nested
    @TestPropertySource(properties = {"onceonly.encryption.active-key-id=test",
        "onceonly.encryption.keys.test=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="})
    class EncryptedAtRest {

        @Autowired
        InMemoryIdempotencyStore store;

        @Test
        void replayIsWhatTheFirstClientReceivedWhileTheStoreHoldsOnlyCiphertext() throws Exception {
            String key = newKey();

            HttpResponse<String> first = post("/orders", key, ORDER);
            HttpResponse<String> retry = post("/orders", key, ORDER);

            assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            assertThat(retry.statusCode()).isEqualTo(first.statusCode());
            assertThat(retry.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
            assertThat(retry.headers().firstValue("Content-Type"))
                    .isEqualTo(first.headers().firstValue("Content-Type"));
            assertThat(withoutSecret(retry.body())).isEqualTo(withoutSecret(first.body()));
            StoredResponse stored = store.find(IdempotencyScope.of("alice", "create-order", IdempotencyKey.of(key)))
                    .orElseThrow().response();
            assertThat(stored.headers()).containsOnlyKeys("OnceOnly-Encrypted");
            assertThat(stored.bodyAsString()).doesNotContain("\"sku\"");
        }
    }

    /** A request and its retry with the same key. */
    private record Exchange(HttpResponse<String> first, HttpResponse<String> retry) {
    }

    private Exchange twice(String path) {
        String key = newKey();
        return new Exchange(post(path, key, ORDER), post(path, key, ORDER));
    }

    private HttpResponse<String> post(String path, String key, String body) {
        return post(path, key, body, "alice");
    }

    private HttpResponse<String> post(String path, String key, String body, String user) {
        return send(request(path, key, body, user));
    }

    private HttpRequest request(String path, String key, String body, String user) {
        return HttpRequest.newBuilder(uri(path)).header("Idempotency-Key", key)
                .header("Content-Type", "application/json").header(TestApplication.USER_HEADER, user)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    private HttpResponse<String> send(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private static String newKey() {
        return UUID.randomUUID().toString();
    }

    private static String withoutSecret(String body) {
        return body.replace("s3cret", "[REDACTED]");
    }

    private static void assertProblem(HttpResponse<String> response, int status, String type) {
        assertThat(response.statusCode()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(response.body()).contains("\"type\":\"" + PROBLEMS + type + "\"")
                .contains("\"status\":" + status).doesNotContain("Exception");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration(excludeName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
    @Import(Handlers.class)
    static class TestApplication {

        /** The test's stand-in for authentication: never do this in an application. */
        static final String USER_HEADER = "X-Test-User";
        static final AtomicReference<CountDownLatch> SLOW_ENTERED =
                new AtomicReference<>(new CountDownLatch(0));
        static final AtomicReference<CountDownLatch> SLOW_RELEASE =
                new AtomicReference<>(new CountDownLatch(0));
        /** Counted down when the streaming handler's thread has written all it could. */
        static final AtomicReference<CountDownLatch> STREAMING = new AtomicReference<>(new CountDownLatch(0));
        static final AtomicInteger TEXT_RUNS = new AtomicInteger();
        static final AtomicInteger STREAMING_RUNS = new AtomicInteger();
        /** Set by a filter before ours, as CORS and security filters set theirs. */
        static final String BEFORE_HEADER = "X-Before";

        @Bean
        InMemoryIdempotencyStore store() {
            return new InMemoryIdempotencyStore();
        }

        @Bean
        IdempotencyStoreDecorator watchingStore() {
            return StoreWatch::watching;
        }

        @Bean
        IdempotencyOwnerResolver testOwner() {
            return request -> {
                String user = request.getHeader(USER_HEADER);
                if ("fail".equals(user)) {
                    throw new IllegalStateException("the resolver failed (injected by the test)");
                }
                return user;
            };
        }

        /** Keeps the container's response where the store can look at it. */
        @Bean
        FilterRegistrationBean<Filter> clientResponseHolder() {
            FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>((request, response, chain) -> {
                StoreWatch.CLIENT.set((HttpServletResponse) response);
                ((HttpServletResponse) response).setHeader(BEFORE_HEADER, "kept");
                ((HttpServletResponse) response).addHeader("Vary", "Origin");
                try {
                    chain.doFilter(request, response);
                } finally {
                    StoreWatch.CLIENT.remove();
                }
            });
            registration.setOrder(OnceOnlyWebMvcAutoConfiguration.FILTER_ORDER - 1);
            return registration;
        }

        /** What logging filters do: reuse a caching wrapper if there is one, then copy it out and flush. */
        @Bean
        FilterRegistrationBean<Filter> responseLoggingFilter() {
            FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>((request, response, chain) -> {
                ContentCachingResponseWrapper existing = WebUtils.getNativeResponse(response,
                        ContentCachingResponseWrapper.class);
                ContentCachingResponseWrapper cached = existing != null ? existing
                        : new ContentCachingResponseWrapper((HttpServletResponse) response);
                chain.doFilter(request, cached);
                assertThat(cached.getContentSize()).isPositive();
                cached.copyBodyToResponse();
                response.flushBuffer();
            });
            registration.addUrlPatterns("/logged/*");
            registration.setOrder(OnceOnlyWebMvcAutoConfiguration.FILTER_ORDER + 1);
            return registration;
        }

        /** Returns to our filter only once the asynchronous thread has written, so that it writes meanwhile. */
        @Bean
        FilterRegistrationBean<Filter> waitForStreaming() {
            FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>((request, response, chain) -> {
                chain.doFilter(request, response);
                if (request.isAsyncStarted()) {
                    try {
                        assertThat(STREAMING.get().await(30, TimeUnit.SECONDS)).isTrue();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            registration.addUrlPatterns("/streaming");
            registration.setOrder(OnceOnlyWebMvcAutoConfiguration.FILTER_ORDER + 1);
            return registration;
        }
    }

    @RestController
    static class Handlers {

        private final AtomicInteger orders = new AtomicInteger();

        @PostMapping("/orders")
        @Idempotent("create-order")
        ResponseEntity<Map<String, Object>> create(@RequestBody Map<String, Object> order) {
            int id = orders.incrementAndGet();
            return ResponseEntity.created(URI.create("/orders/" + id)).header("Vary", "Accept-Language")
                    .body(Map.of("id", id, "sku", order.get("sku"), "secret", "s3cret"));
        }

        @PostMapping("/slow")
        @Idempotent(value = "slow", waitTimeout = "0s")
        String slow() throws InterruptedException {
            TestApplication.SLOW_ENTERED.get().countDown();
            assertThat(TestApplication.SLOW_RELEASE.get().await(30, TimeUnit.SECONDS)).isTrue();
            return "done";
        }

        @PostMapping("/text")
        @Idempotent("text")
        void text(@RequestParam int size, HttpServletResponse response) throws IOException {
            TestApplication.TEXT_RUNS.incrementAndGet();
            writeText(size, response);
        }

        @PostMapping("/writer")
        @Idempotent("writer")
        void writer(@RequestParam int size, HttpServletResponse response) throws IOException {
            response.setContentType("text/plain;charset=UTF-8");
            for (int i = 0; i < size; i += 100) {
                response.getWriter().write("x".repeat(Math.min(100, size - i)));
            }
        }

        /** A configured endpoint (annotated, it would stop startup) that writes on another thread. */
        @PostMapping("/streaming")
        ResponseEntity<StreamingResponseBody> streaming() {
            TestApplication.STREAMING_RUNS.incrementAndGet();
            return ResponseEntity.created(URI.create("/streamed/1")).body(out -> {
                try {
                    for (int written = 0; written < 1 << 20; written += 1024) {
                        out.write(new byte[1024]);
                    }
                } finally {
                    TestApplication.STREAMING.get().countDown();
                }
            });
        }

        @PostMapping("/logged/text")
        @Idempotent("logged-text")
        void loggedText(@RequestParam int size, HttpServletResponse response) throws IOException {
            writeText(size, response);
        }

        @PostMapping("/redirect")
        @Idempotent("redirect")
        void redirect(HttpServletResponse response) throws IOException {
            response.sendRedirect("/orders/7", 303);
        }

        private static void writeText(int size, HttpServletResponse response) throws IOException {
            response.setContentType("text/plain");
            response.setHeader("X-Handler", "text");
            for (int i = 0; i < size; i += 100) {
                response.getOutputStream().write("x".repeat(Math.min(100, size - i)).getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    /** Records, when an outcome is stored, whether anything of the response had been sent already. */
    static final class StoreWatch {

        static final ThreadLocal<HttpServletResponse> CLIENT = new ThreadLocal<>();
        static final Map<String, Boolean> COMMITTED_WHEN_STORED = new ConcurrentHashMap<>();

        static IdempotencyStore watching(IdempotencyStore store) {
            return (IdempotencyStore) Proxy.newProxyInstance(IdempotencyStore.class.getClassLoader(),
                    new Class<?>[] {IdempotencyStore.class}, (proxy, method, args) -> {
                        HttpServletResponse client = CLIENT.get();
                        if (method.getName().equals("complete") && client != null) {
                            COMMITTED_WHEN_STORED.merge(((IdempotencyScope) args[0]).operation(),
                                    client.isCommitted(), Boolean::logicalOr);
                        }
                        try {
                            return method.invoke(store, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }
    }
}
