package dev.onceonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class OutcomeCodecTest {

    private record OrderCreated(long orderId) {
    }

    private static final OutcomeCodec<OrderCreated> ORDERS = OutcomeCodec.of(
            order -> StoredResponse.of(201, Long.toString(order.orderId()).getBytes(StandardCharsets.UTF_8)),
            stored -> new OrderCreated(Long.parseLong(stored.bodyAsString())));

    @Test
    void codecOfTwoFunctionsEncodesWithTheFirstAndDecodesWithTheSecond() {
        StoredResponse stored = ORDERS.encode(new OrderCreated(42));

        OrderCreated replayed = ORDERS.decode(stored);

        assertThat(stored.status()).isEqualTo(201);
        assertThat(stored.bodyAsString()).isEqualTo("42");
        assertThat(replayed).isEqualTo(new OrderCreated(42));
    }

    @Test
    void codecOfTwoFunctionsRefusesMissingFunctionsAndANullEncoding() {
        OutcomeCodec<String> encodesNothing = OutcomeCodec.of(result -> null, StoredResponse::bodyAsString);

        assertThatThrownBy(() -> OutcomeCodec.of(null, StoredResponse::bodyAsString))
                .isInstanceOf(NullPointerException.class).hasMessage("encode");
        assertThatThrownBy(() -> OutcomeCodec.<String>of(result -> StoredResponse.of(200, new byte[0]), null))
                .isInstanceOf(NullPointerException.class).hasMessage("decode");
        assertThatThrownBy(() -> encodesNothing.encode("order"))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("returned null");
    }

    @Test
    void identityCodecPassesTheStoredResponseThrough() {
        StoredResponse response = StoredResponse.of(200, "body".getBytes(StandardCharsets.UTF_8));

        assertThat(OutcomeCodec.identity().encode(response)).isSameAs(response);
        assertThat(OutcomeCodec.identity().decode(response)).isSameAs(response);
    }
}
