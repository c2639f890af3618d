package dev.onceonly.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletResponse;

class BufferedResponseTest {

    private final MockHttpServletResponse client = new MockHttpServletResponse();
    private final BufferedResponse buffered = new BufferedResponse(client);

    @Test
    void redirectIsHeldBackUntilTheBufferIsCopied() throws Exception {
        buffered.sendRedirect("/orders/42");

        // A real sendRedirect would have committed the response before the transaction did.
        assertThat(client.isCommitted()).isFalse();
        assertThat(buffered.getStatus()).isEqualTo(302);
        assertThat(buffered.getHeader("Location")).isEqualTo("/orders/42");

        buffered.copyBodyToResponse();

        assertThat(client.getStatus()).isEqualTo(302);
        assertThat(client.getHeader("Location")).isEqualTo("/orders/42");
    }

    @Test
    void errorBecomesABufferedProblemAndLaterWritesAreDropped() throws Exception {
        buffered.sendError(404);
        buffered.getOutputStream().write("late".getBytes(StandardCharsets.UTF_8));
        buffered.setStatus(200);

        assertThat(client.isCommitted()).isFalse();
        assertThat(client.getErrorMessage()).isNull();
        assertThat(buffered.getStatus()).isEqualTo(404);
        assertThat(new String(buffered.getContentAsByteArray(), StandardCharsets.UTF_8))
                .isEqualTo("{\"type\":\"about:blank\",\"title\":\"Not Found\",\"status\":404}");
        assertThat(buffered.getContentType()).isEqualTo("application/problem+json");
    }
}
