package dev.onceonly.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@code Idempotency-Key} protocol as a client sees it, checked over HTTP against any implementation: extend
 * this class in a JUnit 5 test and return the API to check from {@link #target()}, or run the module with
 * {@code -Pconformance} against a URL ({@link ConformanceTarget#fromSystemProperties()}).
 *
 * <p>Each case's name says which document it follows: {@code [IETF]} is
 * <a href="https://datatracker.ietf.org/doc/draft-ietf-httpapi-idempotency-key-header/">
 * draft-ietf-httpapi-idempotency-key-header-06</a> (its section named), {@code [RFC 9457]} problem details,
 * {@code [RFC 7240]} {@code Prefer}, {@code [Stripe]} Stripe's API, whose replay marker and key length are what
 * most clients expect, and {@code [OnceOnly]} the stronger promises of OnceOnly's protocol. Cases that need what a
 * target did not give (a second caller, a reordered body, a bypass path, an asynchronous style) are reported as
 * skipped, never as passed.
 */
@Timeout(120)
public abstract class IdempotencyKeyConformance {

    private static final String REPLAYED = "Idempotent-Replayed";
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    // One for every case: each client holds a selector thread and its own idle connections.
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    private ConformanceTarget target;

    /** The API under test; called before each case. */
    protected abstract ConformanceTarget target();

    @BeforeEach
    void targetUnderTest() {
        target = target();
    }

    @Test
    @DisplayName("[IETF, Idempotency Enforced Scenarios; Stripe] a retry gets the first answer, marked as replayed")
    void aRetryGetsTheFirstAnswerMarkedAsReplayed() throws Exception {
        ConformanceTarget.Endpoint endpoint = target.endpoint();
        String key = newKey();

        HttpResponse<byte[]> first = post(endpoint, endpoint.body(), key);
        HttpResponse<byte[]> retry = post(endpoint, endpoint.body(), key);

        assertSucceeded(first);
        assertThat(first.headers().firstValue(REPLAYED)).as("the first answer's %s", REPLAYED).isEmpty();
        assertThat(retry.statusCode()).as("the retry's status").isEqualTo(first.statusCode());
        assertThat(retry.body()).as("the retry's body").isEqualTo(first.body());
        assertThat(retry.headers().firstValue(REPLAYED)).as("the retry's %s", REPLAYED).hasValue("true");
        assertThat(retry.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
    }

    @Test
    @DisplayName("[IETF, Error Scenarios] a request without a key is refused with 400 and a problem")
    void aRequestWithoutAKeyIsRefused() throws Exception {
        ConformanceTarget.Endpoint endpoint = target.endpoint();

        assertProblem(post(endpoint, endpoint.body(), List.of(), target.authorization()), 400);
    }

    @Test
    @DisplayName("[IETF, Syntax] an empty key is refused with 400")
    void anEmptyKeyIsRefused() throws Exception {
        ConformanceTarget.Endpoint endpoint = target.endpoint();

        assertProblem(post(endpoint, endpoint.body(), List.of(""), target.authorization()), 400);
        assertProblem(post(endpoint, endpoint.body(), List.of("\"\""), target.authorization()), 400);
    }

    @Test
    @DisplayName("[Stripe] a key up to the maximum length is accepted, a longer one refused with 400")
    void keysUpToTheMaximumLengthAreAcceptedLongerOnesRefused() throws Exception {
        ConformanceTarget.Endpoint endpoint = target.endpoint();
        String longest = keyOfLength(target.maxKeyLength());

        assertSucceeded(post(endpoint, endpoint.body(), longest));
        assertProblem(post(endpoint, endpoint.body(), keyOfLength(target.maxKeyLength() + 1)), 400);
    }

    @Test
    @DisplayName("[IETF, Syntax] a list of keys, in one field or in two, is refused with 400")
    void aListOfKeysIsRefused() throws Exception {
        ConformanceTarget.Endpoint endpoint = target.endpoint();

        assertProblem(post(endpoint, endpoint.body(), List.of(newKey(), newKey()), target.authorization()), 400);
        assertProblem(post(endpoint, endpoint.body(), List.of("\"" + newKey() + "\", \"" + newKey() + "\""),
                target.authorization()), 400);
    }

    @Test
    @DisplayName("[IETF, Syntax] a key sent as a Structured Field String is the same key sent bare")
    void aQuotedKeyIsTheBareKey() throws Exception {
        ConformanceTarget.Endpoint endpoint = target.endpoint();
        String key = newKey();

        HttpResponse<byte[]> quoted = post(endpoint, endpoint.body(), List.of("\"" + key + "\""), target.authorization());
        HttpResponse<byte[]> bare = post(endpoint, endpoint.body(), key);

        assertSucceeded(quoted);
        assertThat(bare.headers().firstValue(REPLAYED)).hasValue("true");
        assertThat(bare.body()).isEqualTo(quoted.body());
    }

    @Test
    @DisplayName("[IETF, Error Scenarios] a key reused with another request is refused with 422 (or the API's "
            + "configured status) and a problem")
    void aKeyReusedWithAnotherRequestIsRefused() throws Exception {
        ConformanceTarget.Endpoint endpoint = target.endpoint();
        String key = newKey();
        assertSucceeded(post(endpoint, endpoint.body(), key));

        HttpResponse<byte[]> reused = post(endpoint, endpoint.otherBody(), key);

        assertProblem(reused, target.keyReusedStatus());
        assertThat(reused.headers().firstValue(REPLAYED)).isEmpty();
    }

    @Test
    @DisplayName("[IETF, Error Scenarios; OnceOnly] concurrent duplicates run once: the others replay it or get 409 "
            + "with Retry-After")
    void concurrentDuplicatesRunOnce() throws Exception {
        ConformanceTarget.Endpoint endpoint = target.endpoint();
        String key = newKey();

        List<HttpResponse<byte[]>> responses = concurrently(10, () -> post(endpoint, endpoint.body(), key));

        List<HttpResponse<byte[]>> ran = responses.stream().filter(response -> isSuccess(response)
                && response.headers().firstValue(REPLAYED).isEmpty()).toList();
        assertThat(ran).as("answers of a run, not replayed").hasSize(1);
        assertThat(responses).allSatisfy(response -> {
            if (isSuccess(response)) {
                assertThat(response.statusCode()).isEqualTo(ran.getFirst().statusCode());
                assertThat(response.body()).isEqualTo(ran.getFirst().body());
            } else {
                assertProblem(response, 409);
                assertThat(response.headers().firstValue("Retry-After")).as("Retry-After of a 409")
                        .hasValueSatisfying(seconds -> assertThat(Long.parseLong(seconds)).isPositive());
            }
        });
    }

    @Test
    @DisplayName("[IETF, Idempotency Enforced Scenarios] a key on a method that needs none changes nothing")
    void aKeyOnARequestThatBypassesTheProtocolChangesNothing() throws Exception {
        assumeThat(target.bypassPath()).as("a bypass path (ConformanceTarget.Builder.bypassPath)").isNotNull();
        String bypass = Objects.requireNonNull(target.bypassPath());

        HttpResponse<byte[]> read = send(HttpRequest.newBuilder(target.uri(bypass)).GET(), List.of("!"),
                target.authorization());

        assertThat(read.statusCode()).as(text(read)).isBetween(200, 299);
        assertThat(read.headers().firstValue(REPLAYED)).isEmpty();
    }

    @Test
    @DisplayName("[Stripe; OnceOnly] one key of two callers is two requests: neither sees the other's")
    void oneKeyOfTwoCallersIsTwoRequests() throws Exception {
        String other = target.otherOwnerAuthorization();
        assumeThat(other).as("a second caller (ConformanceTarget.Builder.otherOwnerAuthorization)").isNotNull();
        ConformanceTarget.Endpoint endpoint = target.endpoint();
        ConformanceTarget.Endpoint othersEndpoint = target.endpoint();
        String key = newKey();

        HttpResponse<byte[]> first = post(endpoint, endpoint.body(), key);
        HttpResponse<byte[]> others = post(othersEndpoint, othersEndpoint.otherBody(), List.of(key), other);

        assertSucceeded(first);
        assertSucceeded(others);
        assertThat(others.headers().firstValue(REPLAYED)).isEmpty();
        assertThat(others.body()).isNotEqualTo(first.body());
    }

    @Test
    @DisplayName("[OnceOnly] the same JSON with its members reordered and reformatted is the same request")
    void theSameJsonReorderedIsTheSameRequest() throws Exception {
        ConformanceTarget.Endpoint endpoint = target.endpoint();
        assumeThat(endpoint.reorderedBody()).as("a reordered body (ConformanceTarget.Endpoint.reorderedBody)")
                .isNotNull();
        String reorderedBody = Objects.requireNonNull(endpoint.reorderedBody());
        String key = newKey();

        HttpResponse<byte[]> first = post(endpoint, endpoint.body(), key);
        HttpResponse<byte[]> reordered = post(endpoint, reorderedBody, key);

        assertSucceeded(first);
        assertThat(reordered.headers().firstValue(REPLAYED)).hasValue("true");
        assertThat(reordered.body()).isEqualTo(first.body());
    }

    @Test
    @DisplayName("[RFC 7240; OnceOnly] a request made synchronously and retried preferring respond-async gets its "
            + "first answer")
    void aRequestRetriedPreferringAsyncGetsItsFirstAnswer() throws Exception {
        assumeThat(target.respondsAsync()).as("an asynchronous style (ConformanceTarget.Builder.respondsAsync)")
                .isTrue();
        ConformanceTarget.Endpoint endpoint = target.endpoint();
        String key = newKey();

        HttpResponse<byte[]> first = post(endpoint, endpoint.body(), key);
        HttpResponse<byte[]> retry = postPreferringAsync(endpoint, key);

        assertSucceeded(first);
        assertThat(retry.statusCode()).as(text(retry)).isEqualTo(first.statusCode());
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue(REPLAYED)).hasValue("true");
    }

    @Test
    @DisplayName("[RFC 7240; OnceOnly] a request accepted asynchronously and retried synchronously is the same "
            + "request: 202 or 409 until it ends, then one answer, also at the 202's Location")
    void aRequestAcceptedAsynchronouslyIsTheSameRequestWhenRetriedSynchronously() throws Exception {
        assumeThat(target.respondsAsync()).as("an asynchronous style (ConformanceTarget.Builder.respondsAsync)")
                .isTrue();
        ConformanceTarget.Endpoint endpoint = target.endpoint();
        String key = newKey();

        HttpResponse<byte[]> accepted = postPreferringAsync(endpoint, key);
        assertThat(accepted.statusCode()).as(text(accepted)).isEqualTo(202);
        String location = accepted.headers().firstValue("Location").orElse(null);
        assertThat(location).as("the 202's Location").isNotNull();
        HttpResponse<byte[]> done = untilFinal(() -> post(endpoint, endpoint.body(), key));
        HttpResponse<byte[]> again = post(endpoint, endpoint.body(), key);
        // Whoever ran it (the worker, or the retry that took the queued operation over), it ran once: the status
        // resource of the 202 ends with the same answer. Two records for one key would end with two answers.
        HttpResponse<byte[]> status = untilFinal(() -> send(HttpRequest.newBuilder(target.uri(
                Objects.requireNonNull(location))).GET(), List.of(), target.authorization()));

        assertSucceeded(done);
        assertThat(status.statusCode()).as("the status resource's final answer: %s", text(status))
                .isEqualTo(done.statusCode());
        assertThat(status.body()).as("the status resource's final answer").isEqualTo(done.body());
        assertThat(again.statusCode()).isEqualTo(done.statusCode());
        assertThat(again.body()).isEqualTo(done.body());
        assertThat(again.headers().firstValue(REPLAYED)).hasValue("true");
    }

    /** Retries until the answer is neither "accepted" nor "in progress"; each of those must say so properly. */
    private HttpResponse<byte[]> untilFinal(Call call) throws Exception {
        Instant deadline = Instant.now().plus(PATIENCE);
        while (Instant.now().isBefore(deadline)) {
            HttpResponse<byte[]> answer = call.send();
            if (answer.statusCode() == 409) {
                assertProblem(answer, 409);
            } else if (answer.statusCode() != 202) {
                return answer;
            }
            Thread.sleep(300);
        }
        return fail("no final answer within " + PATIENCE);
    }

    private HttpResponse<byte[]> post(ConformanceTarget.Endpoint endpoint, String body, String key) throws Exception {
        return post(endpoint, body, List.of(key), target.authorization());
    }

    private HttpResponse<byte[]> post(ConformanceTarget.Endpoint endpoint, String body, List<String> keys,
            @Nullable String authorization) throws Exception {
        return send(HttpRequest.newBuilder(target.uri(endpoint.path())).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)), keys, authorization);
    }

    private HttpResponse<byte[]> postPreferringAsync(ConformanceTarget.Endpoint endpoint, String key)
            throws Exception {
        return send(HttpRequest.newBuilder(target.uri(endpoint.path())).header("Content-Type", "application/json")
                .header("Prefer", "respond-async").POST(HttpRequest.BodyPublishers.ofString(endpoint.body())),
                List.of(key), target.authorization());
    }

    private HttpResponse<byte[]> send(HttpRequest.Builder request, List<String> keys, @Nullable String authorization)
            throws Exception {
        keys.forEach(key -> request.header(target.keyHeader(), key));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return HTTP.send(request.timeout(PATIENCE).build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    /** A refusal as RFC 9457 says: its media type, and a body whose status is the response's. */
    private void assertProblem(HttpResponse<byte[]> response, int status) {
        assertThat(response.statusCode()).as("status of %s", text(response)).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).as("[RFC 9457] media type")
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
        JsonNode problem = JSON.readTree(response.body());
        assertThat(problem.path("status").asInt()).as("[RFC 9457] status member").isEqualTo(status);
        assertThat(problem.path("title").isString()).as("[RFC 9457] title member").isTrue();
        String type = problem.path("type").asString("about:blank");
        String typeBase = target.problemTypeBase();
        if (typeBase != null) {
            assertThat(type).as("[RFC 9457] type member").startsWith(typeBase).hasSizeGreaterThan(typeBase.length());
        }
        assertThat(text(response)).as("a problem without a stack trace").doesNotContain("Exception", "\tat ");
    }

    private static void assertSucceeded(HttpResponse<byte[]> response) {
        assertThat(isSuccess(response)).as("a 2xx answer, not %d %s", response.statusCode(), text(response))
                .isTrue();
    }

    private static boolean isSuccess(HttpResponse<byte[]> response) {
        return response.statusCode() >= 200 && response.statusCode() < 300;
    }

    /** {@code count} calls released at once, each answered. */
    private static List<HttpResponse<byte[]>> concurrently(int count, Call call) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        try (ExecutorService threads = Executors.newFixedThreadPool(count)) {
            List<Future<HttpResponse<byte[]>>> calls = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                calls.add(threads.submit(() -> {
                    start.await();
                    return call.send();
                }));
            }
            start.countDown();
            List<HttpResponse<byte[]>> responses = new ArrayList<>();
            for (Future<HttpResponse<byte[]>> answer : calls) {
                responses.add(answer.get());
            }
            return responses;
        }
    }

    private static String newKey() {
        return UUID.randomUUID().toString();
    }

    /** A unique key of exactly {@code length} characters. */
    private static String keyOfLength(int length) {
        StringBuilder key = new StringBuilder(length);
        while (key.length() < length) {
            key.append(UUID.randomUUID().toString().replace("-", ""));
        }
        return key.substring(0, length);
    }

    private static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    @FunctionalInterface
    private interface Call {
        HttpResponse<byte[]> send() throws Exception;
    }
}
