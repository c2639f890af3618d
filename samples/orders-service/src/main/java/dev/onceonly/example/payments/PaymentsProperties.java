package dev.onceonly.example.payments;

import java.net.URI;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The payment provider: its webhook and its charges API ({@code example.payments.*}).
 *
 * @param webhookSecret the secret the provider signs its events with (HMAC-SHA256); at least 16 characters
 * @param signatureTolerance how far a signature's timestamp may be from this service's clock, either way, before
 *     the event is refused as a replay of an old delivery
 * @param providerUrl the provider's base URL (http or https), under which {@code /charges} lies
 * @param providerConnectTimeout how long connecting to the provider may take
 * @param providerReadTimeout how long the provider may take to answer a charge; past it the payment is answered
 *     503 and a retry asks again under the same key, so the provider never charges twice
 * @param providerAttempts how often one payment attempt calls the provider (through onceonly-client, under the
 *     same key) before it answers 503: a dropped connection or a 503 is retried at once, within the attempt
 */
@ConfigurationProperties("example.payments")
public record PaymentsProperties(String webhookSecret, @DefaultValue("5m") Duration signatureTolerance,
        @DefaultValue("http://localhost:8090") URI providerUrl,
        @DefaultValue("2s") Duration providerConnectTimeout,
        @DefaultValue("5s") Duration providerReadTimeout,
        @DefaultValue("3") int providerAttempts) {

    public PaymentsProperties {
        if (webhookSecret == null || webhookSecret.strip().length() < 16) {
            throw new IllegalArgumentException("example.payments.webhook-secret must be set, at least 16 characters");
        }
        requirePositive("signature-tolerance", signatureTolerance);
        if (!("http".equals(providerUrl.getScheme()) || "https".equals(providerUrl.getScheme()))
                || providerUrl.getHost() == null) {
            throw new IllegalArgumentException("example.payments.provider-url must be an http or https URL with a "
                    + "host, not " + providerUrl);
        }
        requirePositive("provider-connect-timeout", providerConnectTimeout);
        requirePositive("provider-read-timeout", providerReadTimeout);
        if (providerAttempts < 1 || providerAttempts > 10) {
            throw new IllegalArgumentException("example.payments.provider-attempts must be 1 to 10, not "
                    + providerAttempts);
        }
    }

    private static void requirePositive(String name, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException("example.payments." + name + " must be positive, not " + value);
        }
    }

    @Override
    public String toString() {
        // Never the secret.
        return "PaymentsProperties[webhookSecret=(set), signatureTolerance=" + signatureTolerance + ", providerUrl="
                + providerUrl + ", providerConnectTimeout=" + providerConnectTimeout + ", providerReadTimeout="
                + providerReadTimeout + ", providerAttempts=" + providerAttempts + "]";
    }
}
