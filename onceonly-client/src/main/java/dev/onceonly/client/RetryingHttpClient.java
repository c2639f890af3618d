package dev.onceonly.client;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Sends requests through a JDK {@link HttpClient}, repeating them under a {@link ClientRetryPolicy} with one
 * {@code Idempotency-Key} per logical call.
 *
 * <p>Keys: a POST or PATCH without one gets a fresh {@link UuidV7}; a key already in the request's header, or
 * passed to {@link #send(HttpRequest, HttpResponse.BodyHandler, String)}, is used as given. Every attempt of the
 * call sends the same request with the same key; a retry is never re-keyed. GET, HEAD, PUT, DELETE, OPTIONS and
 * TRACE get no key and are repeated as they are idempotent by HTTP semantics; other methods without a key are
 * sent once. What is repeated and how long the client waits is described on {@link ClientRetryPolicy}.
 *
 * <p>The request's body publisher is subscribed once per attempt, so it must be repeatable (as those from
 * {@link HttpRequest.BodyPublishers#ofString}, {@code ofByteArray} and {@code ofFile} are). The answers of superseded
 * attempts are discarded; a body that is {@link AutoCloseable} (an input stream) is closed.
 *
 * <p>Thread safe if the wrapped client is (the JDK's is).
 */
public final class RetryingHttpClient {

    private static final RetryLoop.Responses<HttpResponse<?>> RESPONSES = new RetryLoop.Responses<>() {
        @Override
        public int status(HttpResponse<?> response) {
            return response.statusCode();
        }

        @Override
        public @Nullable String retryAfter(HttpResponse<?> response) {
            return response.headers().firstValue("Retry-After").orElse(null);
        }

        @Override
        public boolean replayed(HttpResponse<?> response) {
            return IdempotentCalls.wasReplayed(response);
        }

        @Override
        public void discard(HttpResponse<?> response) throws IOException {
            if (response.body() instanceof AutoCloseable closeable) {
                try {
                    closeable.close();
                } catch (IOException | RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IOException("Could not close a superseded response body", e);
                }
            }
        }
    };

    private final HttpClient client;
    private final RetryLoop loop;
    private final UuidV7 keys = new UuidV7();

    /**
     * @param client the client that sends each attempt; its timeouts bound each attempt
     * @param policy when to repeat a call and how long to wait
     */
    public RetryingHttpClient(HttpClient client, ClientRetryPolicy policy) {
        this.client = Objects.requireNonNull(client, "client");
        this.loop = new RetryLoop(Objects.requireNonNull(policy, "policy"));
    }

    /**
     * Sends the request, repeating it under the policy; a POST or PATCH without a key gets a generated one.
     *
     * @param request the request; an {@code Idempotency-Key} header in it is kept
     * @param handler how to read each answer's body
     * @param <T> the body type
     * @return the last answer, the key used and the attempts made
     * @throws IOException the last failure when no attempt was answered (earlier failures suppressed in it)
     * @throws InterruptedIOException if the thread is interrupted; its interrupt flag is set again
     * @throws IllegalArgumentException if the request's key is not valid or it has more than one
     */
    public <T> CallResult<HttpResponse<T>> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
            throws IOException {
        return call(request, handler, null);
    }

    /**
     * Sends the request with the given key, whatever its method, repeating it under the policy. Use it for a key
     * that must stay stable beyond this call, such as a downstream key derived from a leased attempt.
     *
     * @param request the request; an {@code Idempotency-Key} header in it must equal {@code key}
     * @param handler how to read each answer's body
     * @param key the key, see {@link IdempotentCalls#requireValidKey(String)}
     * @param <T> the body type
     * @return the last answer, the key used and the attempts made
     * @throws IOException the last failure when no attempt was answered (earlier failures suppressed in it)
     * @throws InterruptedIOException if the thread is interrupted; its interrupt flag is set again
     * @throws IllegalArgumentException if the key is not valid or differs from the request's header
     */
    public <T> CallResult<HttpResponse<T>> send(HttpRequest request, HttpResponse.BodyHandler<T> handler, String key)
            throws IOException {
        return call(request, handler, Objects.requireNonNull(key, "key"));
    }

    private <T> CallResult<HttpResponse<T>> call(
            HttpRequest request, HttpResponse.BodyHandler<T> handler, @Nullable String explicitKey)
            throws IOException {
        String key = IdempotentCalls.resolveKey(request.method(),
                request.headers().allValues(IdempotentCalls.KEY_HEADER), explicitKey, () -> keys.next().toString());
        HttpRequest keyed = key == null ? request
                : HttpRequest.newBuilder(request, (name, value) -> true).setHeader(IdempotentCalls.KEY_HEADER, key).build();
        RetryLoop.Finished<HttpResponse<?>> finished = loop.run(
                CallKind.of(request.method(), key != null), () -> sendOnce(keyed, handler), RESPONSES);
        @SuppressWarnings("unchecked") // the loop returns what sendOnce gave it
        HttpResponse<T> response = (HttpResponse<T>) finished.response();
        return new CallResult<>(response, key, finished.attempts(), IdempotentCalls.wasReplayed(response));
    }

    private <T> HttpResponse<T> sendOnce(HttpRequest request, HttpResponse.BodyHandler<T> handler)
            throws IOException {
        try {
            return client.send(request, handler);
        } catch (InterruptedException interrupt) {
            // The loop sees the flag and stops, as it does for clients that turn an interrupt into an IOException.
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException("Interrupted while sending");
            interrupted.initCause(interrupt);
            throw interrupted;
        }
    }
}
