package dev.onceonly.example.payments;

import dev.onceonly.Attempt;
import dev.onceonly.StoredResponse;
import dev.onceonly.spring.boot.async.AsynchronousOperation;
import org.springframework.stereotype.Component;

/**
 * The asynchronous payment of an order ({@code Prefer: respond-async}): a worker runs {@link PaymentService#pay}
 * for each accepted request, again after a crash or a 503, until it has a final answer.
 */
@RunsWithOnceOnly
@Component
class PayOrderOperation implements AsynchronousOperation<PayOrderOperation.Payload> {

    static final String NAME = "pay-order-async";

    /**
     * What the worker needs: which order, and whose (the owner of the request, as its scope has it).
     *
     * @param orderId the order to pay
     * @param owner its owner, as the idempotency owner resolver gave it
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
