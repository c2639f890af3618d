package dev.onceonly.example.payments;

import dev.onceonly.Attempt;
import dev.onceonly.StoredResponse;
import dev.onceonly.spring.async.AsynchronousOperation;
import org.springframework.stereotype.Component;

/**
 * The asynchronous payment of an order ({@code Prefer: respond-async}): a worker runs {@link PaymentService#pay}
 * for each accepted request, again after a crash or a 503, until it has a final answer.
 */
@RunsWithOnceOnly
@Component
class PayOrderOperation implements AsynchronousOperation<PayOrderOperation.Payload> {

    /** The operation of both payment styles: one key, one payment. */
    static final String NAME = "pay-order";

    /**
     * What the worker needs: which order, and whose.
     *
     * @param orderId the order to pay
     * @param owner the user whose order it is
     */
    record Payload(long orderId, String owner) {
    }

    private final PaymentService payments;

    PayOrderOperation(PaymentService payments) {
        this.payments = payments;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Class<Payload> payloadType() {
        return Payload.class;
    }

    @Override
    public StoredResponse run(Attempt attempt, Payload payload) {
        return payments.pay(attempt, payload.orderId(), payload.owner());
    }
}
