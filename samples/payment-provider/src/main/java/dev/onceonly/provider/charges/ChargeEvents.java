package dev.onceonly.provider.charges;

import com.fasterxml.jackson.annotation.JsonValue;

/** Where the provider announces what happened to a charge (webhooks, when configured). */
@FunctionalInterface
public interface ChargeEvents {

    /** Announces asynchronously: returns at once, never throws for a delivery that fails. */
    void publish(Type type, Charge charge);

    /** What happened. */
    enum Type {
        SUCCEEDED("payment.succeeded"),
        DECLINED("payment.declined"),
        REFUNDED("payment.refunded");

        private final String wireName;

        Type(String wireName) {
            this.wireName = wireName;
        }

        @JsonValue
        public String wireName() {
            return wireName;
        }
    }
}
