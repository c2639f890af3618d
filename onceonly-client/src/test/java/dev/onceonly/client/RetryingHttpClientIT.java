package dev.onceonly.client;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** The contract on the JDK HttpClient. */
class RetryingHttpClientIT extends IdempotentClientContract {

    private final HttpClient httpClient = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Override
    protected Answer call(ClientRetryPolicy policy, Call call) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(call.uri()).timeout(READ_TIMEOUT)
                .method(call.method(), call.method().equals("GET")
                        ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString("{\"item\":\"book\"}"));
        if (call.headerKey() != null) {
            request.header(IdempotentCalls.KEY_HEADER, call.headerKey());
        }
        RetryingHttpClient client = new RetryingHttpClient(httpClient, policy);
        CallResult<HttpResponse<String>> result = call.explicitKey() == null
                ? client.send(request.build(), HttpResponse.BodyHandlers.ofString())
                : client.send(request.build(), HttpResponse.BodyHandlers.ofString(), call.explicitKey());
        return new Answer(result.response().statusCode(), result.response().body(), result.replayed(), result.key(),
                result.attempts());
    }
}
