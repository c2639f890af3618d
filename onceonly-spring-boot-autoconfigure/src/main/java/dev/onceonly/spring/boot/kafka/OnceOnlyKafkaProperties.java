package dev.onceonly.spring.boot.kafka;

import dev.onceonly.IdempotencyConfigurationException;
import dev.onceonly.Retention;
import dev.onceonly.kafka.outbox.OutboxRelay;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code onceonly.kafka.*}: idempotent listeners and the outbox relay.
 *
 * @param inboxRetention how long a listener's handled keys are kept where its @IdempotentListener does not
 *     say: longer than the broker may redeliver (Kafka's default log retention is 7 days)
 * @param eventIdHeader the record header with the producer's event id
 * @param redisDedupeLease how long a Redis-TTL listener's claim lasts while its effect runs: longer than the
 *     effect's longest time
 * @param outbox the relay that publishes an outbox table
 */
@ConfigurationProperties("onceonly.kafka")
public record OnceOnlyKafkaProperties(@DefaultValue("P8D") Duration inboxRetention,
        @DefaultValue(OutboxRelay.EVENT_ID_HEADER) String eventIdHeader,
        @DefaultValue("1m") Duration redisDedupeLease, @DefaultValue Outbox outbox) {

    /**
     * {@code onceonly.kafka.outbox.*}: the relay runs on every instance when a table is named.
     *
     * @param table the outbox table (the layout OutboxRelay documents); none turns the relay off
     * @param topic where its rows are published
     * @param pollInterval the pause between rounds when nothing is left to publish
     * @param maxBackoff the longest pause after consecutive failures
     * @param batchSize rows sent per round (one transaction)
     * @param sendTimeout how long a round waits for the broker's acknowledgements
     * @param retention how long published rows are kept before the background cleanup deletes them; unset, they
     *     stay
     */
    public record Outbox(@Nullable String table, @Nullable String topic, @DefaultValue("500ms") Duration pollInterval,
            @DefaultValue("30s") Duration maxBackoff, @DefaultValue("100") int batchSize,
            @DefaultValue("10s") Duration sendTimeout, @Nullable Duration retention) {

        public Outbox {
            if (table != null && (topic == null || topic.isBlank())) {
                throw IdempotencyConfigurationException.of("onceonly.kafka.outbox.topic", "is required when "
                        + "onceonly.kafka.outbox.table is set");
            }
            requirePositive("onceonly.kafka.outbox.poll-interval", pollInterval);
            requirePositive("onceonly.kafka.outbox.send-timeout", sendTimeout);
            if (maxBackoff.compareTo(pollInterval) < 0) {
                throw IdempotencyConfigurationException.of("onceonly.kafka.outbox.max-backoff", "must be at least "
                        + "the poll interval (" + pollInterval + "), but is " + maxBackoff);
            }
            if (retention != null && (retention.isNegative() || retention.isZero())) {
                throw IdempotencyConfigurationException.of("onceonly.kafka.outbox.retention", "must be positive, but "
                        + "is " + retention);
            }
            if (batchSize < 1) {
                throw IdempotencyConfigurationException.of("onceonly.kafka.outbox.batch-size", "must be at least 1, "
                        + "but is " + batchSize);
            }
        }

        private static void requirePositive(String name, Duration value) {
            if (value.isNegative() || value.isZero()) {
                throw IdempotencyConfigurationException.of(name, "must be positive, but is " + value);
            }
        }
    }

    public OnceOnlyKafkaProperties {
        Objects.requireNonNull(inboxRetention, "inboxRetention");
        if (inboxRetention.isNegative() || inboxRetention.isZero() || inboxRetention.compareTo(Retention.MAX) > 0) {
            throw IdempotencyConfigurationException.of("onceonly.kafka.inbox-retention", "must be positive and at "
                    + "most " + Retention.MAX + ", but is " + inboxRetention);
        }
        if (redisDedupeLease.isNegative() || redisDedupeLease.isZero()) {
            throw IdempotencyConfigurationException.of("onceonly.kafka.redis-dedupe-lease", "must be positive");
        }
        if (eventIdHeader.isBlank()) {
            throw IdempotencyConfigurationException.of("onceonly.kafka.event-id-header", "must not be blank");
        }
    }
}
