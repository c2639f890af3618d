package dev.onceonly.example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.provider.PaymentProviderApplication;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The simulated payment provider ({@code onceonly-payment-provider}), started once in this JVM on a random port
 * for every test that pays, and driven through its HTTP API as a demo would: faults by {@code /admin/faults},
 * charges read by {@code GET /charges}.
 */
final class PaymentProviderServer {

    /**
     * This JVM's class path is the example's: the provider must not read the example's application.properties or
     * start the example's database, security and OnceOnly auto-configurations.
     */
    private static final String[] PROPERTIES = {
        "server.port=0",
        "spring.config.name=payment-provider-in-tests",
        "spring.application.name=onceonly-payment-provider",
        "spring.mvc.problemdetails.enabled=true",
        "server.shutdown=immediate",
        "onceonly.enabled=false",
        "spring.autoconfigure.exclude="
                + "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration,"
                + "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration,"
                + "org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration,"
                + "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration,"
                + "org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration,"
                + "org.springframework.boot.security.autoconfigure.actuate.web.servlet."
                + "ManagementWebSecurityAutoConfiguration"
    };

    private final URI url;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final JsonMapper json = new JsonMapper();

    private PaymentProviderServer() {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(PaymentProviderApplication.class)
                .properties(PROPERTIES)
                .run();
        int port = ((WebServerApplicationContext) context).getWebServer().getPort();
        this.url = URI.create("http://127.0.0.1:" + port);
    }

    /**
     * A provider of its own for one test class: its charges are listed by order id, which restarts with every
     * database, so two test classes on two databases must not share one.
     */
    static PaymentProviderServer start() {
        return new PaymentProviderServer();
    }

    URI url() {
        return url;
    }

    /** Replaces the provider's faults, such as {@code {"failures":["retryable","retryable"]}}. */
    void faults(String plan) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(url.resolve("/admin/faults"))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(plan)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    }

    /** No faults; every answer held for a latency goes now. */
    void clearFaults() throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(url.resolve("/admin/faults")).DELETE()
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    }

    /** The charges the provider made for {@code order-<orderId>}, declined ones too. */
    JsonNode charges(long orderId) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                url.resolve("/charges?reference=order-" + orderId)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return json.readTree(response.body());
    }
}
