package dev.onceonly.provider;

import dev.onceonly.provider.faults.Failure;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Startup settings under {@code provider.}; invalid values fail startup naming the property.
 *
 * @param latency           how long every charge request waits before answering, until changed at runtime
 * @param failures          the faults the first new charge requests meet, one each, in order
 * @param webhookUrl        where events are sent; none are sent without it
 * @param webhookSecret     the HMAC-SHA256 key of the {@code Payment-Signature} header; required with a URL
 * @param webhookDeliveries how many times each event is delivered (more than once shows duplicates)
 * @param webhookAttempts   how many attempts one delivery makes before it is given up
 * @param webhookBackoff    the wait before the second attempt of a delivery, doubled before each further one
 */
@ConfigurationProperties("provider")
public record ProviderProperties(
        @DefaultValue("PT0S") Duration latency,
        @DefaultValue List<Failure> failures,
        @Nullable URI webhookUrl,
        @Nullable String webhookSecret,
        @DefaultValue("2") int webhookDeliveries,
        @DefaultValue("5") int webhookAttempts,
        @DefaultValue("PT0.2S") Duration webhookBackoff) {

    public ProviderProperties {
        failures = List.copyOf(failures);
        if (latency.isNegative()) {
            throw new IllegalArgumentException("provider.latency must not be negative");
        }
        if (webhookUrl != null && (webhookSecret == null || webhookSecret.isBlank())) {
            throw new IllegalArgumentException("provider.webhook-secret is required when provider.webhook-url is set");
        }
        if (webhookUrl != null && !("http".equals(webhookUrl.getScheme()) || "https".equals(webhookUrl.getScheme()))) {
            throw new IllegalArgumentException("provider.webhook-url must be an http or https URL");
        }
        if (webhookDeliveries < 1) {
            throw new IllegalArgumentException("provider.webhook-deliveries must be at least 1");
        }
        if (webhookAttempts < 1) {
            throw new IllegalArgumentException("provider.webhook-attempts must be at least 1");
        }
        if (webhookBackoff.isNegative()) {
            throw new IllegalArgumentException("provider.webhook-backoff must not be negative");
        }
    }

    /** Without the secret: these settings may be printed. */
    @Override
    public String toString() {
        return "ProviderProperties[latency=" + latency + ", failures=" + failures + ", webhookUrl=" + webhookUrl
                + ", webhookDeliveries=" + webhookDeliveries + ", webhookAttempts=" + webhookAttempts
                + ", webhookBackoff=" + webhookBackoff + "]";
    }
}
