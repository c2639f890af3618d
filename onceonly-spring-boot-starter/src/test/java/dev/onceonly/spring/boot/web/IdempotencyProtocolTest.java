package dev.onceonly.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IdempotencyException;
import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyKeyFormat;
import dev.onceonly.IdempotencyKeyReusedException;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.IdempotencyStoreException;
import dev.onceonly.InvalidIdempotencyKeyException;
import dev.onceonly.MalformedRequestBodyException;
import dev.onceonly.RequestInProgressException;
import dev.onceonly.spring.boot.web.IdempotencyListener.Outcome;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The decision table every transport answers by: each failure's refusal, and one listener outcome per request. */
class IdempotencyProtocolTest {

    private static final IdempotencyScope SCOPE = IdempotencyScope.of("alice", "create-order",
            IdempotencyKey.of("0c4b2a9e-5b8f-4f5e-9a51-3f4d2c1b0a99"));

    private final List<Outcome> said = new ArrayList<>();
    private final IdempotencyProtocol protocol = new IdempotencyProtocol(List.of((operation, outcome) -> {
        assertThat(operation).isEqualTo("create-order");
        said.add(outcome);
    }));

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of(invalidKey(), Outcome.INVALID_REQUEST),
                Arguments.of(MalformedRequestBodyException.ofMultipart(), Outcome.INVALID_REQUEST),
                Arguments.of(RequestBodyTooLargeException.of(1024), Outcome.INVALID_REQUEST),
                Arguments.of(UnsupportedRequestEncodingException.ofCharset(), Outcome.INVALID_REQUEST),
                Arguments.of(AuthenticationRequiredException.of(), Outcome.INVALID_REQUEST),
                Arguments.of(OwnerUnresolvableException.blank(), Outcome.INVALID_REQUEST),
                Arguments.of(IdempotencyKeyReusedException.of(SCOPE), Outcome.KEY_REUSED),
                Arguments.of(RequestInProgressException.of(SCOPE, Duration.ofSeconds(1)), Outcome.IN_PROGRESS),
                Arguments.of(ResponseTooLargeException.of(1024), Outcome.ERROR),
                Arguments.of(ServerBusyException.of(), Outcome.STORE_UNAVAILABLE));
    }

    @ParameterizedTest
    @MethodSource("refusals")
    void eachRefusalIsItsOwnProblemAndIsSaidOnce(IdempotencyException failure, Outcome outcome) {
        IdempotencyProtocol.Refusal refusal = protocol.refusal(failure, "create-order", true);

        assertThat(refusal).isEqualTo(new IdempotencyProtocol.Refusal(outcome, failure));
        assertThat(said).containsExactly(outcome);
    }

    @Test
    void aStoreThatFailedBeforeTheHandlerRanIsA503ThatSaysNothingRan() {
        IdempotencyStoreException down = new IdempotencyStoreException("claim failed", new IOException("reset"));

        IdempotencyProtocol.Refusal refusal = protocol.refusal(down, "create-order", false);

        assertThat(refusal).isNotNull();
        assertThat(refusal.outcome()).isEqualTo(Outcome.STORE_UNAVAILABLE);
        assertThat(refusal.problem().problemType()).isEqualTo("idempotency-store-unavailable");
        assertThat(refusal.problem().getMessage()).endsWith("the request was not executed");
        assertThat(said).containsExactly(Outcome.STORE_UNAVAILABLE);
    }

    @Test
    void theHandlersOwnFailuresAndTheStoresAfterItRanAreNoRefusals() {
        IdempotencyStoreException afterTheHandler = new IdempotencyStoreException("complete failed",
                new IOException("reset"));

        assertThat(protocol.refusal(afterTheHandler, "create-order", true)).isNull();
        assertThat(protocol.refusal(new IllegalStateException("the handler's bug"), "create-order", false)).isNull();
        assertThat(said).containsExactly(Outcome.ERROR, Outcome.ERROR);
    }

    private static InvalidIdempotencyKeyException invalidKey() {
        try {
            IdempotencyKeyFormat.DEFAULT.parseHeader(List.of("a", "b"));
        } catch (InvalidIdempotencyKeyException e) {
            return e;
        }
        throw new AssertionError("two keys were accepted");
    }
}
