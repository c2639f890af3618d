package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.OutcomePolicy.Decision;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Outcomes that are not HTTP responses carry no status, and count as successes (issue 11). */
class StoredResponseTest {

    @Test
    void resultOfAConsumerHasNoStatusAndSucceedsWhateverThePolicy() {
        StoredResponse handled = StoredResponse.result("noted".getBytes(StandardCharsets.UTF_8));
        OutcomePolicy refusesEverything = status -> Decision.RETRYABLE;

        assertThat(handled.hasStatus()).isFalse();
        assertThat(handled.status()).isEqualTo(StoredResponse.NO_STATUS);
        assertThat(handled.bodyAsString()).isEqualTo("noted");
        assertThat(refusesEverything.classify(handled)).isEqualTo(Decision.SUCCEEDED);
        assertThat(refusesEverything.classify(StoredResponse.of(201, new byte[0]))).isEqualTo(Decision.RETRYABLE);
    }

    @Test
    void statusOutsideHttpsRangeIsRefused() {
        assertThat(StoredResponse.of(100, new byte[0]).hasStatus()).isTrue();
        assertThatThrownBy(() -> StoredResponse.of(99, new byte[0])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StoredResponse.of(600, new byte[0])).isInstanceOf(IllegalArgumentException.class);
    }
}
