package dev.onceonly.example.payments;

import java.time.Instant;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An event of the payment provider, validated member by member when it is read (members it does not know, such as
 * {@code data.key}, are ignored). The id also is the event's idempotency key, so it keeps to the default key rule.
 *
 * @param id {@code evt_} and 12 to 60 characters of {@code A-Z a-z 0-9 _ -}
 * @param type such as {@code payment.succeeded}; types this service does not act on are accepted and ignored
 * @param created when the provider created the event
 * @param data what it is about
 */
record PaymentEvent(String id, String type, Instant created, Data data) {

    private static final Pattern ID = Pattern.compile("evt_[A-Za-z0-9_-]{12,60}");
    private static final Pattern TYPE = Pattern.compile("[a-z][a-z0-9_.]{0,31}");

    PaymentEvent {
        require(id != null && ID.matcher(id).matches(), "id");
        require(type != null && TYPE.matcher(type).matches(), "type");
        require(created != null, "created");
        require(data != null, "data");
    }

    /**
     * @param chargeId {@code ch_} and 1 to 61 characters of {@code A-Z a-z 0-9 _ -}
     * @param reference {@code order-<order id>}
     * @param amount in minor units, positive
     * @param currency an ISO 4217 code
     */
    record Data(String chargeId, String reference, Long amount, String currency) {

        private static final Pattern CHARGE_ID = Pattern.compile("ch_[A-Za-z0-9_-]{1,61}");
        private static final Pattern REFERENCE = Pattern.compile("order-([1-9][0-9]{0,17})");
        private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

        Data {
            require(chargeId != null && CHARGE_ID.matcher(chargeId).matches(), "data.chargeId");
            require(reference != null && REFERENCE.matcher(reference).matches(), "data.reference");
            require(amount != null && amount > 0, "data.amount");
            require(currency != null && CURRENCY.matcher(currency).matches(), "data.currency");
        }

        /** The id of the order the reference names (at most 18 digits, so it always fits a {@code long}). */
        long orderId() {
            Matcher matcher = REFERENCE.matcher(reference);
            if (!matcher.matches()) {
                throw new IllegalStateException("validated when constructed");
            }
            return Long.parseLong(matcher.group(1));
        }
    }

    private static void require(boolean valid, String member) {
        if (!valid) {
            // The member's name only: its value is the provider's, not ours to echo.
            throw new IllegalArgumentException("member '" + member + "' is missing or malformed");
        }
    }
}
