package dev.onceonly.client;

import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * A Spring {@code RestClient} (or {@code RestTemplate}) interceptor that repeats calls under a {@link ClientRetryPolicy}
 * with one {@code Idempotency-Key} per logical call: {@code RestClient.builder().requestInterceptor(interceptor)}.
 *
 * <p>Keys: a POST or PATCH without one gets a fresh {@link UuidV7}; a key already in the request's header, or put
 * in the request attribute {@link IdempotentCalls#KEY_ATTRIBUTE} (see {@link IdempotentCalls#key(String)}), is used
 * as given. Every attempt sends the same request with the same key; a retry is never re-keyed. GET, HEAD, PUT,
 * DELETE, OPTIONS and TRACE get no key and are repeated as they are idempotent by HTTP semantics; other methods
 * without a key are sent once. What is repeated and how long the interceptor waits is described on
 * {@link ClientRetryPolicy}. Whether the answer was a replay is in its headers ({@link #wasReplayed(HttpHeaders)}); the key
 * and the attempts of each call go to the listener given with {@link #withListener(Consumer)}.
 *
 * <p>Interceptors registered after this one run again on every attempt, those before it once; register it before
 * any that must see each attempt (such as one that adds a fresh access token). The interceptor chain buffers the
 * request body, so every attempt sends the same bytes. An attempt that ends in an
 * I/O failure reaches the caller, after the last attempt, as RestClient's {@code ResourceAccessException}.
 *
 * <p>Thread safe.
 */
public final class IdempotencyKeyInterceptor implements ClientHttpRequestInterceptor {

    private static final RetryLoop.Responses<ClientHttpResponse> RESPONSES = new RetryLoop.Responses<>() {
        @Override
        public int status(ClientHttpResponse response) throws IOException {
            return response.getStatusCode().value();
        }

        @Override
        public @Nullable String retryAfter(ClientHttpResponse response) {
            return response.getHeaders().getFirst(HttpHeaders.RETRY_AFTER);
        }

        @Override
        public boolean replayed(ClientHttpResponse response) {
            return wasReplayed(response.getHeaders());
        }

        @Override
        public void discard(ClientHttpResponse response) {
            response.close();
        }
    };

    private final RetryLoop loop;
    private final Consumer<? super CallResult<ClientHttpResponse>> listener;
    private final UuidV7 keys = new UuidV7();

    /**
     * @param policy when to repeat a call and how long to wait
     */
    public IdempotencyKeyInterceptor(ClientRetryPolicy policy) {
        this(new RetryLoop(Objects.requireNonNull(policy, "policy")), result -> {
        });
    }

    private IdempotencyKeyInterceptor(RetryLoop loop, Consumer<? super CallResult<ClientHttpResponse>> listener) {
        this.loop = loop;
        this.listener = listener;
    }

    /**
     * An interceptor like this one that also reports every answered call, with its key and attempts, before the
     * answer goes back to RestClient (for logs and metrics; it should neither read the body nor throw). Calls that
     * end in an I/O failure are not reported.
     *
     * @param listener called on the calling thread
     * @return a new interceptor with the same policy
     */
    public IdempotencyKeyInterceptor withListener(Consumer<? super CallResult<ClientHttpResponse>> listener) {
        return new IdempotencyKeyInterceptor(loop, Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Whether the server answered with a stored response rather than acting again.
     *
     * @param headers the answer's headers, e.g. {@code ResponseEntity.getHeaders()}
     * @return true if they carry {@code Idempotent-Replayed: true}
     */
    public static boolean wasReplayed(HttpHeaders headers) {
        return IdempotentCalls.isTrue(headers.getFirst(IdempotentCalls.REPLAYED_HEADER));
    }

    /**
     * @throws IllegalArgumentException if the key given is not valid, not a string, or differs from the header
     */
    @Override
    public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
            throws IOException {
        String method = request.getMethod().name();
        List<String> inHeader = request.getHeaders().get(IdempotentCalls.KEY_HEADER);
        String key = IdempotentCalls.resolveKey(method, inHeader == null ? List.of() : inHeader,
                explicitKey(request), () -> keys.next().toString());
        if (key != null) {
            request.getHeaders().set(IdempotentCalls.KEY_HEADER, key);
        }
        RetryLoop.Finished<ClientHttpResponse> finished = loop.run(
                CallKind.of(method, key != null), () -> execution.execute(request, body), RESPONSES);
        ClientHttpResponse response = finished.response();
        listener.accept(new CallResult<>(response, key, finished.attempts(), wasReplayed(response.getHeaders())));
        return response;
    }

    private static @Nullable String explicitKey(HttpRequest request) {
        Object key = request.getAttributes().get(IdempotentCalls.KEY_ATTRIBUTE);
        if (key == null || key instanceof String) {
            return (String) key;
        }
        throw new IllegalArgumentException(
                "The request attribute " + IdempotentCalls.KEY_ATTRIBUTE + " holds a String, not a "
                        + key.getClass().getName());
    }
}
