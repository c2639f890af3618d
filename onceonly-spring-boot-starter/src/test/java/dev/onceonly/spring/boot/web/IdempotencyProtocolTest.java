package dev.onceonly.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.onceonly.IdempotencyKey;
import dev.onceonly.IdempotencyKeyReusedException;
import dev.onceonly.IdempotencyScope;
import dev.onceonly.http.RequestOutcome;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every transport's refusals and failures are said to the listeners once per request. */
class IdempotencyProtocolTest {

    private final List<RequestOutcome> said = new ArrayList<>();
    private final IdempotencyProtocol protocol = new IdempotencyProtocol(new ResponseSnapshots(List.of(), List.of(),
            1 << 20), 1 << 20, List.of((operation, outcome) -> {
        assertThat(operation).isEqualTo("create-order");
        said.add(outcome);
    }));

    @Test
    void aRefusalIsSaidOnceAsItsOutcome() {
        IdempotencyKeyReusedException reused = IdempotencyKeyReusedException.of(IdempotencyScope.of("alice",
                "create-order", IdempotencyKey.of("0c4b2a9e-5b8f-4f5e-9a51-3f4d2c1b0a99")));

        assertThat(protocol.refusal(reused, "create-order", false)).isNotNull();
        assertThat(said).containsExactly(RequestOutcome.KEY_REUSED);
    }

    @Test
    void aFailureThatIsNoRefusalIsSaidOnceAsAnError() {
        assertThat(protocol.refusal(new IllegalStateException("the handler's bug"), "create-order", true)).isNull();
        assertThat(said).containsExactly(RequestOutcome.ERROR);
    }
}
