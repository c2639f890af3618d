package dev.onceonly.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/** The contract on Spring's RestClient over the JDK request factory. */
class IdempotencyKeyInterceptorIT extends IdempotentClientContract {

    @Override
    protected Answer call(ClientRetryPolicy policy, Call call) {
        AtomicReference<CallResult<ClientHttpResponse>> reported = new AtomicReference<>();
        JdkClientHttpRequestFactory requestFactory = new JdkClientHttpRequestFactory(
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());
        requestFactory.setReadTimeout(READ_TIMEOUT);
        RestClient restClient = RestClient.builder()
                .requestFactory(requestFactory)
                .requestInterceptor(new IdempotencyKeyInterceptor(policy).withListener(reported::set))
                .build();

        RestClient.RequestBodySpec request = restClient.method(HttpMethod.valueOf(call.method())).uri(call.uri());
        if (call.explicitKey() != null) {
            // The raw attribute, not IdempotentCalls.key(...), so that the interceptor's own check is what runs.
            request.attribute(IdempotentCalls.KEY_ATTRIBUTE, call.explicitKey());
        }
        if (call.headerKey() != null) {
            request.header(IdempotentCalls.KEY_HEADER, call.headerKey());
        }
        if (!call.method().equals("GET")) {
            request.body("{\"item\":\"book\"}");
        }
        return request.exchange((req, response) -> new Answer(response.getStatusCode().value(),
                new String(response.getBody().readAllBytes(), StandardCharsets.UTF_8),
                IdempotencyKeyInterceptor.wasReplayed(response.getHeaders()), reported.get().key(),
                reported.get().attempts()));
    }

    @Test
    void keyHelperPutsAValidatedKeyInTheRequestAttributes() throws Exception {
        server.script(DedupServer.Fault.UNAVAILABLE);
        RestClient restClient = RestClient.builder()
                .requestInterceptor(new IdempotencyKeyInterceptor(policy().build()))
                .build();

        var entity = restClient.post().uri(server.uri("/orders")).attributes(IdempotentCalls.key("refund:7:1"))
                .body("{}").retrieve().toEntity(String.class);

        assertThat(entity.getStatusCode().value()).isEqualTo(201);
        assertThat(server.keysSeen()).containsExactly("refund:7:1", "refund:7:1");
    }

    @Test
    void replayIsReadFromTheResponseHeaders() {
        HttpHeaders replayed = new HttpHeaders();
        replayed.set("Idempotent-Replayed", "true");

        assertThat(IdempotencyKeyInterceptor.wasReplayed(replayed)).isTrue();
        assertThat(IdempotencyKeyInterceptor.wasReplayed(new HttpHeaders())).isFalse();
    }
}
