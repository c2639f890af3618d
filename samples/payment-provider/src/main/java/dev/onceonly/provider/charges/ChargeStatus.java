package dev.onceonly.provider.charges;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Where a charge stands. A declined charge is an effect too: it is listed and replayed like a succeeded one. */
public enum ChargeStatus {
    SUCCEEDED,
    DECLINED,
    REFUNDED;

    @JsonValue
    String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
