package dev.onceonly.client;

import static dev.onceonly.client.DedupServer.Fault.DROP_AFTER_COMMIT;
import static dev.onceonly.client.DedupServer.Fault.FAIL;
import static dev.onceonly.client.DedupServer.Fault.HOLD_IN_PROGRESS;
import static dev.onceonly.client.DedupServer.Fault.IN_PROGRESS_FOR_AN_HOUR;
import static dev.onceonly.client.DedupServer.Fault.SLOW_AFTER_COMMIT;
import static dev.onceonly.client.DedupServer.Fault.UNAVAILABLE;
import static dev.onceonly.client.DedupServer.Fault.UNPROCESSABLE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What both clients must do against a real deduplicating server on loopback, one fault at a time: one effect per
 * logical call, the same key on every attempt, the first answer (replayed) to the caller, no retry of 422, and the
 * deadline honoured. Each client runs it through one hook.
 */
abstract class IdempotentClientContract {

    /** The read timeout of the HTTP client under test; the slow and held faults outlast it. */
    static final Duration READ_TIMEOUT = Duration.ofSeconds(1);

    /** One logical call to make. */
    record Call(String method, URI uri, @Nullable String explicitKey, @Nullable String headerKey) {
    }

    /** What the caller got, in terms common to both clients. */
    record Answer(int status, String body, boolean replayed, @Nullable String key, int attempts) {
    }

    /**
     * Makes the call through the client under test, with {@code READ_TIMEOUT} as its read timeout.
     *
     * @throws Exception whatever the client throws when no attempt was answered
     */
    protected abstract Answer call(ClientRetryPolicy policy, Call call) throws Exception;

    final TestTime time = new TestTime();
    DedupServer server;

    @BeforeEach
    void startServer() throws IOException {
        server = new DedupServer();
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    ClientRetryPolicy.Builder policy() {
        return ClientRetryPolicy.builder().initialBackoff(Duration.ofMillis(100)).maxBackoff(Duration.ofSeconds(1))
                .maxAttempts(5).deadline(Duration.ofSeconds(30)).sleeper(time).clock(time);
    }

    Answer post(ClientRetryPolicy policy) throws Exception {
        return call(policy, new Call("POST", server.uri("/orders"), null, null));
    }

    @Test
    void postGetsOneFreshVersion7KeyAndActsOnce() throws Exception {
        Answer answer = post(policy().build());

        assertThat(answer.status()).isEqualTo(201);
        assertThat(UUID.fromString(answer.key()).version()).isEqualTo(7);
        assertThat(server.keysSeen()).containsExactly(answer.key());
        assertThat(server.effects()).containsExactly(Map.entry(answer.key(), 1));
        assertThat(answer.attempts()).isEqualTo(1);
        assertThat(answer.replayed()).isFalse();
    }

    @Test
    void eachLogicalCallGetsItsOwnKey() throws Exception {
        Answer first = post(policy().build());
        Answer second = post(policy().build());

        assertThat(first.key()).isNotEqualTo(second.key());
        assertThat(server.effects()).containsOnlyKeys(first.key(), second.key());
    }

    @Test
    void connectionDroppedAfterTheEffectIsRetriedWithTheSameKeyAndGetsTheFirstAnswer() throws Exception {
        server.script(DROP_AFTER_COMMIT);

        Answer answer = post(policy().build());

        assertThat(answer.status()).isEqualTo(201);
        assertThat(answer.body()).isEqualTo("{\"id\":\"order-1\"}");
        assertThat(answer.replayed()).isTrue();
        assertThat(answer.attempts()).isEqualTo(2);
        assertThat(server.keysSeen()).containsExactly(answer.key(), answer.key());
        assertThat(server.effects()).containsExactly(Map.entry(answer.key(), 1));
    }

    @Test
    void answerSlowerThanTheReadTimeoutIsRetriedWithTheSameKeyAndGetsTheFirstAnswer() throws Exception {
        server.script(SLOW_AFTER_COMMIT);

        Answer answer = post(policy().build());

        assertThat(answer.status()).isEqualTo(201);
        assertThat(answer.body()).isEqualTo("{\"id\":\"order-1\"}");
        assertThat(answer.replayed()).isTrue();
        assertThat(answer.attempts()).isEqualTo(2);
        assertThat(server.keysSeen()).containsExactly(answer.key(), answer.key());
        assertThat(server.effects()).containsExactly(Map.entry(answer.key(), 1));
    }

    @Test
    void conflictWhileTheFirstRequestRunsIsWaitedOutForItsRetryAfter() throws Exception {
        server.script(HOLD_IN_PROGRESS);
        // The server finishes the held request while the client waits the Retry-After of the 409.
        time.onSleep(slept -> {
            if (slept.equals(Duration.ofSeconds(1))) {
                server.release();
                server.awaitCommitted();
            }
        });

        Answer answer = post(policy().build());

        assertThat(answer.status()).isEqualTo(201);
        assertThat(answer.body()).isEqualTo("{\"id\":\"order-1\"}");
        assertThat(answer.replayed()).isTrue();
        assertThat(answer.attempts()).isEqualTo(3);
        assertThat(time.sleeps()).hasSize(2).last().isEqualTo(Duration.ofSeconds(1));
        assertThat(server.keysSeen()).containsExactly(answer.key(), answer.key(), answer.key());
        assertThat(server.effects()).containsExactly(Map.entry(answer.key(), 1));
    }

    @Test
    void unavailableIsRetriedWithTheSameKeyUntilItActs() throws Exception {
        server.script(UNAVAILABLE, UNAVAILABLE, UNAVAILABLE);

        Answer answer = post(policy().build());

        assertThat(answer.status()).isEqualTo(201);
        assertThat(answer.replayed()).isFalse();
        assertThat(answer.attempts()).isEqualTo(4);
        assertThat(server.keysSeen()).containsExactlyElementsOf(Collections.nCopies(4, answer.key()));
        assertThat(server.effects()).containsExactly(Map.entry(answer.key(), 1));
    }

    @Test
    void unprocessableIsNotRetried() throws Exception {
        server.script(UNPROCESSABLE);

        Answer answer = post(policy().build());

        assertThat(answer.status()).isEqualTo(422);
        assertThat(answer.attempts()).isEqualTo(1);
        assertThat(server.keysSeen()).containsExactly(answer.key());
        assertThat(server.effects()).isEmpty();
        assertThat(time.sleeps()).isEmpty();
    }

    @Test
    void serverErrorIsRetriedUntilTheDeadlineAndTheLastAnswerReachesTheCaller() throws Exception {
        server.whenScriptEnds(FAIL);
        // Every attempt takes a second of test time, so a 5 s deadline leaves room for at most 5 attempts.
        server.onRequest(() -> time.advance(Duration.ofSeconds(1)));

        Answer answer = post(policy().maxAttempts(100).deadline(Duration.ofSeconds(5)).build());

        assertThat(answer.status()).isEqualTo(500);
        assertThat(answer.attempts()).isBetween(2, 5);
        assertThat(server.keysSeen()).containsExactlyElementsOf(Collections.nCopies(answer.attempts(), answer.key()));
        assertThat(time.slept().plusSeconds(answer.attempts() - 1)).isLessThan(Duration.ofSeconds(5));
        assertThat(server.effects()).isEmpty();
    }

    @Test
    void serverErrorIsRetriedAtMostMaxAttemptsTimes() throws Exception {
        server.whenScriptEnds(FAIL);

        Answer answer = post(policy().maxAttempts(3).build());

        assertThat(answer.status()).isEqualTo(500);
        assertThat(answer.attempts()).isEqualTo(3);
        assertThat(server.keysSeen()).hasSize(3);
    }

    @Test
    void retryAfterBeyondTheDeadlineReturnsTheConflictAsIs() throws Exception {
        server.script(IN_PROGRESS_FOR_AN_HOUR);

        Answer answer = post(policy().build());

        assertThat(answer.status()).isEqualTo(409);
        assertThat(answer.attempts()).isEqualTo(1);
        assertThat(time.sleeps()).isEmpty();
    }

    @Test
    void explicitKeyIsSentOnEveryAttempt() throws Exception {
        server.script(UNAVAILABLE);

        Answer answer = call(policy().build(), new Call("POST", server.uri("/orders"), "pay:order-42:1", null));

        assertThat(answer.key()).isEqualTo("pay:order-42:1");
        assertThat(server.keysSeen()).containsExactly("pay:order-42:1", "pay:order-42:1");
        assertThat(server.effects()).containsExactly(Map.entry("pay:order-42:1", 1));
    }

    @Test
    void keyTheCallerSetInTheHeaderIsKept() throws Exception {
        server.script(UNAVAILABLE);

        Answer answer = call(policy().build(), new Call("POST", server.uri("/orders"), null, "callers-own-key"));

        assertThat(answer.key()).isEqualTo("callers-own-key");
        assertThat(server.keysSeen()).containsExactly("callers-own-key", "callers-own-key");
    }

    @Test
    void invalidExplicitKeyIsRefusedBeforeAnythingIsSent() {
        Call call = new Call("POST", server.uri("/orders"), "two words", null);

        assertThatThrownBy(() -> call(policy().build(), call))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("visible ASCII");
        assertThat(server.keysSeen()).isEmpty();
    }

    @Test
    void getCarriesNoKeyAndIsRetriedWhenUnavailable() throws Exception {
        server.script(UNAVAILABLE);

        Answer answer = call(policy().build(), new Call("GET", server.uri("/orders/1"), null, null));

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.key()).isNull();
        assertThat(answer.attempts()).isEqualTo(2);
        assertThat(server.keysSeen()).containsExactly(DedupServer.NO_KEY, DedupServer.NO_KEY);
    }

    @Test
    void refusedConnectionsUntilTheLastAttemptSurfaceTheLastFailure() throws Exception {
        URI nobodyListens;
        try (ServerSocket socket = new ServerSocket(0)) {
            nobodyListens = URI.create("http://127.0.0.1:" + socket.getLocalPort() + "/orders");
        }
        Call call = new Call("POST", nobodyListens, null, null);

        assertThatThrownBy(() -> call(policy().maxAttempts(3).build(), call))
                .satisfies(thrown -> assertThat(causes(thrown)).hasAtLeastOneElementOfType(ConnectException.class));
        assertThat(time.sleeps()).hasSize(2);
    }

    @Test
    void interruptStopsRetryingAndKeepsTheInterruptFlag() throws Exception {
        server.script(UNAVAILABLE);
        time.onSleep(slept -> {
            throw new InterruptedException("interrupted in the test");
        });

        try {
            assertThatThrownBy(() -> post(policy().build()))
                    .satisfies(thrown -> assertThat(causes(thrown))
                            .hasAtLeastOneElementOfType(InterruptedIOException.class));
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
            assertThat(server.keysSeen()).hasSize(1);
        } finally {
            Thread.interrupted();
        }
    }

    static List<Throwable> causes(Throwable thrown) {
        List<Throwable> chain = new ArrayList<>();
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            chain.add(t);
        }
        return chain;
    }
}
