package dev.onceonly.http;

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
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The decision table every transport answers by: each failure's refusal, or none. */
class RefusalTest {

    private static final IdempotencyScope SCOPE = IdempotencyScope.of("alice", "create-order",
            IdempotencyKey.of("0c4b2a9e-5b8f-4f5e-9a51-3f4d2c1b0a99"));

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of(invalidKey(), RequestOutcome.INVALID_REQUEST),
                Arguments.of(MalformedRequestBodyException.ofMultipart(), RequestOutcome.INVALID_REQUEST),
                Arguments.of(RequestBodyTooLargeException.of(1024), RequestOutcome.INVALID_REQUEST),
                Arguments.of(UnsupportedRequestEncodingException.ofCharset(), RequestOutcome.INVALID_REQUEST),
                Arguments.of(AuthenticationRequiredException.of(), RequestOutcome.INVALID_REQUEST),
                Arguments.of(OwnerUnresolvableException.blank(), RequestOutcome.INVALID_REQUEST),
                Arguments.of(IdempotencyKeyReusedException.of(SCOPE), RequestOutcome.KEY_REUSED),
                Arguments.of(RequestInProgressException.of(SCOPE, Duration.ofSeconds(1)), RequestOutcome.IN_PROGRESS),
                Arguments.of(ResponseTooLargeException.of(1024), RequestOutcome.ERROR),
                Arguments.of(ServerBusyException.of(), RequestOutcome.STORE_UNAVAILABLE));
    }

    @ParameterizedTest
    @MethodSource("refusals")
    void eachRefusalIsAnsweredWithItsOwnProblem(IdempotencyException failure, RequestOutcome outcome) {
        assertThat(Refusal.of(failure, "create-order", false)).isEqualTo(new Refusal(outcome, failure));
    }

    /**
     * What the handler throws is its own, also an exception of the protocol from an idempotent call it made: the
     * application's error handling answers it, never a problem that says the request was refused (review of issue
     * 40). A reused key or one in progress, and a response too large to keep, are the engine's and the filter's,
     * after the handler started as before it.
     */
    @ParameterizedTest
    @MethodSource("refusals")
    void onceTheHandlerRanOnlyTheEnginesAndTheFiltersOwnRefusalsRemain(IdempotencyException failure,
            RequestOutcome outcome) {
        Refusal refusal = Refusal.of(failure, "create-order", true);

        if (outcome == RequestOutcome.KEY_REUSED || outcome == RequestOutcome.IN_PROGRESS
                || failure instanceof ResponseTooLargeException) {
            assertThat(refusal).isEqualTo(new Refusal(outcome, failure));
        } else {
            assertThat(refusal).isNull();
        }
    }

    @Test
    void aStoreThatFailedBeforeTheHandlerRanIsA503ThatSaysNothingRan() {
        IdempotencyStoreException down = new IdempotencyStoreException("claim failed", new IOException("reset"));

        Refusal refusal = Refusal.of(down, "create-order", false);

        assertThat(refusal).isNotNull();
        assertThat(refusal.outcome()).isEqualTo(RequestOutcome.STORE_UNAVAILABLE);
        assertThat(refusal.problem().problemType()).isEqualTo("idempotency-store-unavailable");
        assertThat(refusal.problem().getMessage()).endsWith("the request was not executed");
    }

    @Test
    void theHandlersOwnFailuresAndTheStoresAfterItRanAreNoRefusals() {
        IdempotencyStoreException afterTheHandler = new IdempotencyStoreException("complete failed",
                new IOException("reset"));

        assertThat(Refusal.of(afterTheHandler, "create-order", true)).isNull();
        assertThat(Refusal.of(new IllegalStateException("the handler's bug"), "create-order", false)).isNull();
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
