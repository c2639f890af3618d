package dev.onceonly.docs;

import dev.onceonly.Attempt;
import dev.onceonly.client.CallResult;
import dev.onceonly.client.ClientRetryPolicy;
import dev.onceonly.client.IdempotencyKeyInterceptor;
import dev.onceonly.client.IdempotentCalls;
import dev.onceonly.client.RetryingHttpClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

class OrdersClient {

    private final ClientRetryPolicy policy = ClientRetryPolicy.builder().maxAttempts(5)
            .deadline(Duration.ofSeconds(10)).build();
    private final RestClient rest = RestClient.builder().baseUrl("https://orders.example")
            .requestInterceptor(new IdempotencyKeyInterceptor(policy)).build();

    Order create(CreateOrder order) {
        // One key for the logical call, the same on every retry the interceptor makes
        ResponseEntity<Order> created = rest.post().uri("/orders").body(order).retrieve().toEntity(Order.class);
        boolean replayed = IdempotencyKeyInterceptor.wasReplayed(created.getHeaders());
        return created.getBody();
    }

    /** Inside leased work: the key the provider sees is the attempt's downstream key, the same in a take-over. */
    Receipt charge(Attempt attempt, ChargeRequest charge) {
        return rest.post().uri("/charges").attributes(IdempotentCalls.key(attempt.downstreamKey("charge")))
                .body(charge).retrieve().body(Receipt.class);
    }

    /** The JDK client: the key used, the attempts made, and whether the answer was a replay. */
    CallResult<HttpResponse<String>> send(String downstreamKey) throws IOException, InterruptedException {
        RetryingHttpClient client = new RetryingHttpClient(HttpClient.newHttpClient(), policy);
        HttpRequest request = HttpRequest.newBuilder(URI.create("https://payments.example/charges"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"cents\":500}")).build();
        return client.send(request, HttpResponse.BodyHandlers.ofString(), downstreamKey);
    }
}
