package dev.onceonly.example.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;

class OrderStatusTest {

    @Test
    void orderMovesOnlyForwardOneStepAtATime() {
        assertThat(OrderStatus.PENDING_PAYMENT.allows(OrderStatus.PAID)).isTrue();
        assertThat(OrderStatus.PAID.allows(OrderStatus.REFUNDED)).isTrue();

        assertThat(OrderStatus.PENDING_PAYMENT.allows(OrderStatus.REFUNDED)).isFalse();
        assertThat(OrderStatus.PAID.allows(OrderStatus.PENDING_PAYMENT)).isFalse();
        assertThat(OrderStatus.REFUNDED.allows(OrderStatus.PAID)).isFalse();
        assertThat(OrderStatus.PAID.allows(OrderStatus.PAID)).isFalse();
    }

    @Test
    void serviceRefusesATransitionTheStateMachineForbidsBeforeTouchingTheDatabase() {
        OrderService orders = new OrderService(null, null, null, null);

        assertThatIllegalArgumentException().isThrownBy(() -> orders.transition(1, OrderStatus.REFUNDED,
                OrderStatus.PAID));
    }
}
