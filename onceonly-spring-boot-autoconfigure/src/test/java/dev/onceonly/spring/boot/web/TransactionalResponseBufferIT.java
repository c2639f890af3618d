package dev.onceonly.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.spring.web.IdempotencyOwnerResolver;
import dev.onceonly.spring.web.Idempotent;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

/**
 * The response buffer's failure paths in transactional mode, through a real Tomcat on the real PostgreSQL: what
 * rolls back runs again, what may have taken effect is stored. Issue 8 (hardening).
 */
@SpringBootTest(classes = TransactionalResponseBufferIT.TestApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
            "spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/test?user=postgres",
            "spring.flyway.enabled=false",
            "onceonly.http.max-response-body=8KB",
            "onceonly.http.max-buffered-response=16KB",
            "onceonly.http.endpoints[0].path=/tx/streaming",
            "onceonly.replay-cache.time-to-live=0s"})
@Timeout(60)
class TransactionalResponseBufferIT {

    private static final String PROBLEMS = "https://onceonly.dev/problems/";

    @LocalServerPort
    int port;

    @Autowired
    IdempotencyEngine engine;

    @Autowired
    Handlers handlers;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void responseOverTheBufferBoundRollsBackAndTheRetryRunsAgain() throws Exception {
        assertThat(engine.mode()).isEqualTo(IdempotencyMode.TRANSACTIONAL);
        String key = UUID.randomUUID().toString();

        HttpResponse<String> first = post("/tx/text", key);
        HttpResponse<String> retry = post("/tx/text", key);

        assertProblem(first, 500, "response-too-large");
        assertThat(first.headers().firstValue("Location")).isEmpty();
        assertProblem(retry, 500, "response-too-large");
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(handlers.text).hasValue(2);
    }

    @Test
    void asynchronousHandlerIsAStored500WithoutItsHeaders() throws Exception {
        String key = UUID.randomUUID().toString();

        HttpResponse<String> first = post("/tx/streaming", key);
        HttpResponse<String> retry = post("/tx/streaming", key);

        assertProblem(first, 500, "asynchronous-handler");
        assertThat(first.headers().firstValue("Location")).isEmpty();
        assertProblem(retry, 500, "asynchronous-handler");
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.headers().firstValue("Location")).isEmpty();
        assertThat(handlers.streaming).hasValue(1);
    }

    private HttpResponse<String> post(String path, String key) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Idempotency-Key", key).header("X-Test-User", "alice")
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void assertProblem(HttpResponse<String> response, int status, String type) {
        assertThat(response.statusCode()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(response.body()).contains("\"type\":\"" + PROBLEMS + type + "\"");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Handlers.class)
    static class TestApplication {

        /** The test's stand-in for authentication: never do this in an application. */
        @Bean
        IdempotencyOwnerResolver testOwner() {
            return request -> request.getHeader("X-Test-User");
        }
    }

    @RestController
    static class Handlers {

        final AtomicInteger text = new AtomicInteger();
        final AtomicInteger streaming = new AtomicInteger();

        @PostMapping("/tx/text")
        @Idempotent("tx-text")
        void text(HttpServletResponse response) throws IOException {
            text.incrementAndGet();
            response.setHeader("Location", "/tx/orders/1");
            response.setContentType("text/plain");
            for (int i = 0; i < 20; i++) {
                response.getOutputStream().write(new byte[1024]);
            }
        }

        /** A configured endpoint (annotated, it would stop startup) that answers on another thread. */
        @PostMapping("/tx/streaming")
        ResponseEntity<StreamingResponseBody> streaming() {
            streaming.incrementAndGet();
            return ResponseEntity.created(URI.create("/tx/orders/2")).body(out -> out.write('x'));
        }
    }
}
