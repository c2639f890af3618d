package dev.onceonly.spring.web.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.Attempt;
import dev.onceonly.CanonicalJson;
import dev.onceonly.Fingerprint;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.IdempotencyException;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyKeyFormat;
import dev.onceonly.IdempotencyKeyReusedException;
import dev.onceonly.IdempotencyMode;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.LeaseLostException;
import dev.onceonly.RequestInProgressException;
import dev.onceonly.http.HandlerLeftTransactionException;
import dev.onceonly.http.ProblemCatalogue;
import dev.onceonly.http.RequestOutcome;
import dev.onceonly.memory.InMemoryIdempotencyStore;
import dev.onceonly.spring.web.ProblemResponses;
import dev.onceonly.spring.web.ResponseSnapshots;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** The protocol every transport follows: its refusals, its listeners, and its one execution. */
class IdempotencyProtocolTest {

    private final List<RequestOutcome> said = new ArrayList<>();
    private final IdempotencyProtocol protocol = new IdempotencyProtocol(IdempotencyKeyFormat.DEFAULT,
            "Idempotency-Key", new ResponseSnapshots(List.of(), List.of(), 1 << 20), new ProblemResponses(
                    new JsonMapper(), new ProblemCatalogue(URI.create("https://onceonly.dev/problems/"), 422,
                            Duration.ofSeconds(1), "Bearer")), 1 << 20, 1 << 20, List.of((operation, outcome) -> {
                                assertThat(operation).isEqualTo("create-order");
                                said.add(outcome);
                            }));
    private final IdempotencyScope scope = IdempotencyScope.of("alice", "create-order",
            IdempotencyKey.of(UUID.randomUUID().toString()));

    @Test
    void aRefusalIsSaidOnceAsItsOutcome() {
        IdempotencyKeyReusedException reused = IdempotencyKeyReusedException.of(scope);

        assertThat(protocol.refusal(reused, "create-order", false)).isNotNull();
        assertThat(said).containsExactly(RequestOutcome.KEY_REUSED);
    }

    @Test
    void aFailureThatIsNoRefusalIsSaidOnceAsAnError() {
        assertThat(protocol.refusal(new IllegalStateException("the handler's bug"), "create-order", true)).isNull();
        assertThat(said).containsExactly(RequestOutcome.ERROR);
    }

    /**
     * What a client can act on, and nothing else: a nested call's store failure names SQL codes and the stored key
     * in its text, and is the server's failure, not the client's (a review found it answered as a 503 with that
     * text).
     */
    @Test
    void ofANestedCallOnlyAReusedKeyAndACallStillRunningAreTheClientsProblems() {
        RequestInProgressException running = RequestInProgressException.of(scope, Duration.ofSeconds(1));

        assertThat(IdempotencyProtocol.callerProblem(new RuntimeException("wrapped", running))).isSameAs(running);
        assertThat(IdempotencyProtocol.callerProblem(IdempotencyKeyReusedException.of(scope))).isNotNull();
        assertThat(IdempotencyProtocol.callerProblem(new IdempotencyStoreException(
                "Idempotency store (PostgreSQL) failed: SQLState 08006, key " + scope.key().value()))).isNull();
        assertThat(IdempotencyProtocol.callerProblem(new IllegalStateException("the handler's bug"))).isNull();
    }

    /**
     * Another attempt's lost lease, thrown by a leased call the handler made, is a failure of the handler's: the
     * checks after the run still apply, so a handler that escaped its transaction gets its final problem stored
     * (it was skipped, and the key was left free to run again).
     */
    @Test
    void anotherAttemptsLostLeaseStillLetsTheEscapedHandlerEndItsKeyWithItsProblem() {
        IdempotencyEngine engine = IdempotencyEngine.builder(new InMemoryIdempotencyStore())
                .mode(IdempotencyMode.LEASED).build();
        IdempotentEndpoint endpoint = new IdempotentEndpoint("create-order", Set.of("POST"), true, engine,
                CanonicalJson.standard(), List.of(), Set.of(), false);
        Fingerprint fingerprint = Fingerprint.builder().method("POST").route("/api/orders").build();
        Handler escaping = new Handler(LeaseLostException.of(IdempotencyScope.of("alice", "pay", scope.key()), 1));

        IdempotencyProtocol.Answer<Held> first = protocol.execute(endpoint, scope, fingerprint, escaping);
        IdempotencyProtocol.Answer<Held> retry = protocol.execute(endpoint, scope, fingerprint, escaping);

        assertThat(first).isInstanceOfSatisfying(IdempotencyProtocol.Answer.Send.class,
                send -> assertThat(((Held) send.response()).status).isEqualTo(500));
        assertThat(retry).isInstanceOfSatisfying(IdempotencyProtocol.Answer.Replay.class,
                replay -> assertThat(replay.stored().status()).isEqualTo(500));
        assertThat(escaping.runs).isEqualTo(1);
    }

    /** A handler that throws {@code failure} and, run or not, says it left its transaction. */
    private static final class Handler implements IdempotencyProtocol.Handler<Held> {

        private final RuntimeException failure;
        int runs;

        Handler(RuntimeException failure) {
            this.failure = failure;
        }

        @Override
        public Held newResponse() {
            return new Held(200);
        }

        @Override
        public void run(Attempt attempt, Held response) {
            runs++;
            throw failure;
        }

        @Override
        public @Nullable IdempotencyException escaped(Attempt attempt, Held response) {
            return HandlerLeftTransactionException.of("create-order");
        }

        @Override
        public Held problemResponse(IdempotencyException problem) {
            return new Held(500);
        }
    }

    private static final class Held implements IdempotencyProtocol.HeldResponse {

        final int status;

        Held(int status) {
            this.status = status;
        }

        @Override
        public int status() {
            return status;
        }

        @Override
        public @Nullable String contentType() {
            return "application/problem+json";
        }

        @Override
        public Map<String, List<String>> heldHeaders() {
            return Map.of();
        }

        @Override
        public byte[] content() {
            return new byte[0];
        }

        @Override
        public boolean overflowed() {
            return false;
        }

        @Override
        public void seal() {
        }
    }
}
