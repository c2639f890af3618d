package dev.onceonly.spring.method;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

class MethodOutcomeCodecTest {

    public static class Rejected extends RuntimeException {
        public Rejected(String message) {
            super(message);
        }
    }

    public static class RejectedForStock extends Rejected {
        public RejectedForStock(String message, int left) {
            super(message + " (" + left + " left)");
        }
    }

    private final JsonMapper json = new JsonMapper();
    private final MethodOutcomeCodec codec = new MethodOutcomeCodec(json, json.constructType(String.class),
            List.of(Rejected.class));

    @Test
    void aFinalExceptionIsStoredAsItsDeclaredTypeAndMessageOnly() {
        RejectedForStock thrown = new RejectedForStock("no stock", 0);
        thrown.initCause(new IllegalStateException("SELECT * FROM accounts WHERE iban = 'DE89…'"));

        StoredResponse stored = codec.encode(codec.threw(thrown, codec.finalType(thrown).orElseThrow()));
        MethodOutcome replayed = codec.decode(stored);

        assertThat(stored.bodyAsString()).isEqualTo("{\"type\":\"" + Rejected.class.getName()
                + "\",\"message\":\"no stock (0 left)\"}");
        assertThat(replayed).isInstanceOfSatisfying(MethodOutcome.Threw.class, threw -> assertThat(threw.exception())
                .isExactlyInstanceOf(Rejected.class).hasMessage("no stock (0 left)").hasNoCause());
    }

    @Test
    void aStoredTypeThatIsNotDeclaredIsNeverBuilt() {
        StoredResponse tampered = StoredResponse.of(MethodOutcomeCodec.FINAL_EXCEPTION,
                ("{\"type\":\"" + ProcessBuilder.class.getName() + "\",\"message\":\"rm\"}")
                        .getBytes(StandardCharsets.UTF_8));

        assertThatThrownBy(() -> codec.decode(tampered)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not among the method's finalExceptions");
    }

    @Test
    void theEnginesExhaustedOutcomeIsReplayedAsItsProblemType() {
        StoredResponse exhausted = StoredResponse.of(500, ("{\"type\":\"https://onceonly.dev/problems/"
                + "attempts-exhausted\",\"detail\":\"failed on every attempt\"}").getBytes(StandardCharsets.UTF_8));

        assertThat(codec.decode(exhausted)).isInstanceOfSatisfying(MethodOutcome.Threw.class, threw ->
                assertThat(threw.exception()).isInstanceOfSatisfying(OutcomeNotReplayableException.class, e -> {
                    assertThat(e.problemType()).isEqualTo("attempts-exhausted");
                    assertThat(e).hasMessage("failed on every attempt");
                }));
    }
}
