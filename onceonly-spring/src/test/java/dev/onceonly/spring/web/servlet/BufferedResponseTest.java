package dev.onceonly.spring.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.http.ProblemCatalogue;
import dev.onceonly.http.ResponseTooLargeException;
import dev.onceonly.spring.web.ProblemResponses;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.mock.web.MockHttpServletResponse;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class BufferedResponseTest {

    private final MockHttpServletResponse client = new MockHttpServletResponse();
    private final BufferedResponse buffered = new BufferedResponse(client, new ProblemResponses(new JsonMapper(),
            new ProblemCatalogue(URI.create("https://onceonly.dev/problems/"), 422, Duration.ofSeconds(1), "Bearer")),
            1024);

    @FunctionalInterface
    interface Redirect {
        void send(HttpServletResponse response) throws IOException;
    }

    static Stream<Arguments> everySendRedirect() {
        return Stream.of(
                Arguments.of("sendRedirect(String)", (Redirect) r -> r.sendRedirect("/orders/42"), 302),
                Arguments.of("sendRedirect(String, int)", (Redirect) r -> r.sendRedirect("/orders/42", 303), 303),
                Arguments.of("sendRedirect(String, boolean)", (Redirect) r -> r.sendRedirect("/orders/42", true), 302),
                Arguments.of("sendRedirect(String, int, boolean)",
                        (Redirect) r -> r.sendRedirect("/orders/42", 307, true), 307));
    }

    // Issue 8 (hardening)
    @ParameterizedTest(name = "{0}")
    @MethodSource("everySendRedirect")
    void everySendRedirectOverloadIsHeldBackUntilTheResponseIsSent(String overload, Redirect redirect, int status)
            throws Exception {
        redirect.send(buffered);

        // A real sendRedirect would have committed the response before the transaction did.
        assertThat(client.isCommitted()).isFalse();
        assertThat(buffered.getStatus()).isEqualTo(status);
        assertThat(buffered.getHeader("Location")).isEqualTo("/orders/42");

        buffered.sendToClient();

        assertThat(client.getStatus()).isEqualTo(status);
        assertThat(client.getHeader("Location")).isEqualTo("/orders/42");
    }

    @Test
    void errorBecomesABufferedProblemAndLaterWritesAreDropped() throws Exception {
        buffered.sendError(404, "java.lang.IllegalStateException: internal detail");
        buffered.getOutputStream().write("late".getBytes(StandardCharsets.UTF_8));
        buffered.setStatus(200);

        assertThat(client.isCommitted()).isFalse();
        assertThat(client.getErrorMessage()).isNull();
        assertThat(buffered.getStatus()).isEqualTo(404);
        JsonNode problem = new JsonMapper().readTree(buffered.content());
        assertThat(problem.properties()).extracting(Map.Entry::getKey).containsOnly("status", "title");
        assertThat(problem.get("status").asInt()).isEqualTo(404);
        assertThat(problem.get("title").asString()).isEqualTo("Not Found");
        assertThat(buffered.getContentType()).isEqualTo("application/problem+json");
    }

    // Issue 8 (review): a handler that failed after setting them left them on the stored error
    @Test
    void errorDropsTheHeadersOfTheBodyItReplacesAndKeepsTheOthers() throws Exception {
        buffered.setHeader("Location", "/orders/42");
        buffered.setHeader("Content-Encoding", "gzip");
        buffered.setHeader("ETag", "\"v1\"");
        buffered.setHeader("X-Request-Id", "r-1");

        buffered.sendError(409);

        assertThat(buffered.heldHeaders().keySet()).containsOnly("X-Request-Id");
    }

    // Issue 8 (hardening)
    @Test
    void loggingFilterThatCopiesAndFlushesCannotSendOrEmptyTheHeldBody() throws Exception {
        buffered.getWriter().write("{\"id\":42}");
        buffered.flushBuffer();
        buffered.getOutputStream().flush();

        assertThat(client.isCommitted()).isFalse();
        assertThat(client.getContentAsByteArray()).isEmpty();
        assertThat(new String(buffered.content(), StandardCharsets.UTF_8)).isEqualTo("{\"id\":42}");
    }

    // Issue 8 (hardening)
    @Test
    void handlerHeadersReachTheClientOnlyWhenTheResponseIsSent() throws Exception {
        client.setHeader("Access-Control-Allow-Origin", "https://shop.example");
        buffered.setStatus(201);
        buffered.setHeader("Location", "/orders/42");
        buffered.addHeader("Vary", "Accept");
        buffered.setContentType("application/json");
        buffered.addCookie(new jakarta.servlet.http.Cookie("session", "s1"));

        assertThat(client.getStatus()).isEqualTo(200);
        assertThat(client.getHeaderNames()).containsOnly("Access-Control-Allow-Origin");
        assertThat(client.getCookies()).isEmpty();
        assertThat(buffered.getHeader("Access-Control-Allow-Origin")).isEqualTo("https://shop.example");
        assertThat(buffered.heldHeaders().keySet()).containsOnly("Location", "Vary");

        buffered.sendToClient();

        assertThat(client.getStatus()).isEqualTo(201);
        assertThat(client.getHeader("Location")).isEqualTo("/orders/42");
        assertThat(client.getHeader("Access-Control-Allow-Origin")).isEqualTo("https://shop.example");
        assertThat(client.getContentType()).isEqualTo("application/json");
        assertThat(client.getCookie("session")).isNotNull();
    }

    // Issue 8 (hardening)
    @Test
    void handlerHeaderSetReplacesThatOfAFilterBeforeOursAndAddedOneComesAfterIt() throws Exception {
        client.setHeader("Cache-Control", "no-cache");
        client.setHeader("Vary", "Origin");
        buffered.setHeader("Cache-Control", "private");
        buffered.addHeader("Vary", "Accept");

        assertThat(buffered.getHeaders("Cache-Control")).containsExactly("private");
        assertThat(buffered.getHeaders("Vary")).containsExactly("Origin", "Accept");
        buffered.sendToClient();

        assertThat(client.getHeaders("Cache-Control")).containsExactly("private");
        assertThat(client.getHeaders("Vary")).containsExactly("Origin", "Accept");
    }

    // Issue 8 (hardening)
    @Test
    void writerTextOverTheBoundStillInTheEncoderIsReported() {
        buffered.getWriter().write("x".repeat(1000));
        buffered.getWriter().write("y".repeat(100));

        assertThatThrownBy(buffered::checkWithinBound).isInstanceOf(ResponseTooLargeException.class);
        assertThatThrownBy(buffered::content).isInstanceOf(ResponseTooLargeException.class);
    }

    @Test
    void writeOverTheBoundFailsAndIsReported() throws Exception {
        buffered.getOutputStream().write(new byte[1000]);

        assertThatThrownBy(() -> buffered.getOutputStream().write(new byte[100])).isInstanceOf(IOException.class);
        assertThatThrownBy(buffered::checkWithinBound).isInstanceOf(ResponseTooLargeException.class)
                .hasMessageContaining("1024 bytes");
        assertThat(client.isCommitted()).isFalse();
    }
}
