package dev.onceonly.spring.boot.kafka;

import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.Retention;
import dev.onceonly.kafka.inbox.IdempotentListeners;
import java.time.Duration;
import java.util.Objects;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code onceonly.kafka.*}: idempotent listeners.
 *
 * @param inboxRetention how long a listener's handled keys are kept where its {@code @IdempotentListener} does not
 *     say: longer than the broker may redeliver (Kafka's default log retention is 7 days)
 * @param eventIdHeader the record header with the producer's event id
 */
@ConfigurationProperties("onceonly.kafka")
public record OnceOnlyKafkaProperties(@DefaultValue("P8D") Duration inboxRetention,
        @DefaultValue(IdempotentListeners.DEFAULT_EVENT_ID_HEADER) String eventIdHeader) {

    public OnceOnlyKafkaProperties {
        Objects.requireNonNull(inboxRetention, "inboxRetention");
        if (inboxRetention.isNegative() || inboxRetention.isZero() || inboxRetention.compareTo(Retention.MAX) > 0) {
            throw IdempotencyConfigurationException.of("onceonly.kafka.inbox-retention", "must be positive and at "
                    + "most " + Retention.MAX + ", but is " + inboxRetention);
        }
        if (eventIdHeader.isBlank()) {
            throw IdempotencyConfigurationException.of("onceonly.kafka.event-id-header", "must not be blank");
        }
    }
}
