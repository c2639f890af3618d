package dev.onceonly.docs;

import dev.onceonly.IdempotencyMode;
import dev.onceonly.spring.method.IdempotencyKeyParam;
import dev.onceonly.spring.method.IdempotencyOwner;
import dev.onceonly.spring.method.IdempotentMethod;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

@Service
public class PaymentService {

    private final Ledger ledger;

    public PaymentService(Ledger ledger) {
        this.ledger = ledger;
    }

    @Transactional
    @IdempotentMethod(value = "charge", finalExceptions = CardDeclinedException.class)
    public Receipt charge(@IdempotencyOwner String customer, @IdempotencyKeyParam String key, ChargeRequest request)
            throws CardDeclinedException {
        return ledger.debit(customer, request); // once per customer and key; a retry gets this receipt again
    }

    // Called from a listener's transaction: joins it, and the redelivery of a rolled-back event runs again
    @IdempotentMethod(key = "#event.eventId", owner = "'billing-consumer'", mode = IdempotencyMode.JOINED)
    public void apply(PaymentEvent event) {
        ledger.record(event);
    }
}
