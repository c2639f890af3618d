package dev.onceonly.provider.charges;

import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.springframework.stereotype.Component;

/**
 * Every charge the provider made: the effects a client's retries must not multiply. In memory (a
 * {@link ConcurrentHashMap}), lost on restart: this is a simulator. Thread-safe.
 */
@Component
class ChargeLedger {

    private final ConcurrentHashMap<String, Entry> charges = new ConcurrentHashMap<>();
    private final AtomicLong sequence = new AtomicLong();
    private final Clock clock;

    ChargeLedger(Clock clock) {
        this.clock = clock;
    }

    /** The creation order rides along, since two charges may share an instant. */
    private record Entry(long sequence, Charge charge) {
    }

    /** What a refund finds. */
    sealed interface Refund {
    }

    /** @param first false when the charge was refunded before */
    record Refunded(Charge charge, boolean first) implements Refund {
    }

    record NotRefundable() implements Refund {
    }

    record NotFound() implements Refund {
    }

    Charge record(IdempotencyKey key, ChargeRequest request, ChargeStatus status) {
        Charge charge = new Charge("ch_" + UUID.randomUUID(), key.value(), request.amount(), request.currency(),
                request.reference(), status, clock.instant());
        charges.put(charge.id(), new Entry(sequence.incrementAndGet(), charge));
        return charge;
    }

    Refund refund(String chargeId) {
        // Compare-and-set: of racing refunds exactly one replaces the SUCCEEDED entry and is the first.
        while (true) {
            Entry current = charges.get(chargeId);
            if (current == null) {
                return new NotFound();
            }
            switch (current.charge().status()) {
                case DECLINED -> {
                    return new NotRefundable();
                }
                case REFUNDED -> {
                    return new Refunded(current.charge(), false);
                }
                case SUCCEEDED -> {
                    Entry refunded = new Entry(current.sequence(), current.charge().refunded());
                    if (charges.replace(chargeId, current, refunded)) {
                        return new Refunded(refunded.charge(), true);
                    }
                }
            }
        }
    }

    /** The charges that match, in creation order. */
    List<Charge> list(Predicate<Charge> filter) {
        return charges.values().stream()
                .filter(entry -> filter.test(entry.charge()))
                .sorted(Comparator.comparingLong(Entry::sequence))
                .map(Entry::charge)
                .toList();
    }
}
