package dev.onceonly.spring.web.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.onceonly.http.OwnerUnresolvableException;
import dev.onceonly.http.Owners;
import dev.onceonly.http.ProblemCatalogue;
import dev.onceonly.spring.web.ProblemResponses;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.security.web.firewall.RequestRejectedException;
import tools.jackson.databind.json.JsonMapper;

/** Rejections and failures are logged without the values that caused them. Issue 8 (hardening). */
class LogsWithoutSecretsTest {

    private static final String SECRET = "Bearer eyJ-secret-token";

    private final ListAppender<ILoggingEvent> events = new ListAppender<>();
    private Logger captured;

    @AfterEach
    void detach() {
        captured.detachAppender(events);
        captured.setLevel(null);
    }

    @Test
    void firewallRejectionIsLoggedWithoutTheRejectedHeaderValue() throws Exception {
        capture(ProblemRequestRejectedHandler.class);
        ProblemRequestRejectedHandler handler = new ProblemRequestRejectedHandler(new ProblemResponses(
                new JsonMapper(), new ProblemCatalogue(URI.create("https://onceonly.dev/problems/"), 422,
                        Duration.ofSeconds(1), "Bearer")));
        MockHttpServletResponse response = new MockHttpServletResponse();

        handler.handle(new MockHttpServletRequest("POST", "/orders"), response, new RequestRejectedException(
                "The request was rejected because the header value \"" + SECRET + "\" is not allowed."));

        assertThat(response.getStatus()).isEqualTo(400);
        assertThat(response.getContentAsString()).doesNotContain(SECRET);
        assertLoggedWithoutSecret();
    }

    @Test
    void failingOwnerResolverIsLoggedWithoutItsMessageOrStackTrace() {
        capture(Owners.class);
        RequestOwners owners = new RequestOwners(request -> {
            throw new IllegalStateException("ERROR: duplicate key value (token)=(" + SECRET + ")");
        }, false);

        assertThatThrownBy(() -> owners.ownerOf(new MockHttpServletRequest("POST", "/orders")))
                .isInstanceOf(OwnerUnresolvableException.class).hasMessageNotContaining(SECRET);
        assertLoggedWithoutSecret();
        assertThat(events.list).allSatisfy(event -> assertThat(event.getThrowableProxy()).isNull());
    }

    private void capture(Class<?> type) {
        captured = (Logger) LoggerFactory.getLogger(type);
        captured.setLevel(Level.DEBUG);
        events.start();
        captured.addAppender(events);
    }

    private void assertLoggedWithoutSecret() {
        List<String> messages = events.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        assertThat(messages).isNotEmpty().noneMatch(message -> message.contains("secret-token"));
    }
}
