package dev.onceonly.example.payments;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The payment provider's webhook ({@code example.payments.*}).
 *
 * @param webhookSecret the secret the provider signs its events with (HMAC-SHA256); at least 16 characters
 * @param signatureTolerance how far a signature's timestamp may be from this service's clock, either way, before
 *     the event is refused as a replay of an old delivery
 */
@ConfigurationProperties("example.payments")
public record PaymentsProperties(String webhookSecret, @DefaultValue("5m") Duration signatureTolerance) {

    public PaymentsProperties {
        if (webhookSecret == null || webhookSecret.strip().length() < 16) {
            throw new IllegalArgumentException("example.payments.webhook-secret must be set, at least 16 characters");
        }
        if (signatureTolerance.isNegative() || signatureTolerance.isZero()) {
            throw new IllegalArgumentException("example.payments.signature-tolerance must be positive, not "
                    + signatureTolerance);
        }
    }

    @Override
    public String toString() {
        // Never the secret.
        return "PaymentsProperties[webhookSecret=(set), signatureTolerance=" + signatureTolerance + "]";
    }
}
