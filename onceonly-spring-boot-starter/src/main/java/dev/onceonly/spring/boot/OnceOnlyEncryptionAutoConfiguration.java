package dev.onceonly.spring.boot;

import dev.onceonly.crypto.EncryptingIdempotencyStore;
import dev.onceonly.crypto.EncryptionKeys;
import dev.onceonly.spring.boot.metrics.OnceOnlyMetricsAutoConfiguration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Encryption at rest of stored responses when {@code onceonly.encryption.active-key-id} is set, with the keys of
 * {@code onceonly.encryption.keys}. Keys from elsewhere (a secret manager) need no properties: define an
 * {@link IdempotencyStoreDecorator} bean that wraps the store in an {@link EncryptingIdempotencyStore}.
 *
 * <p>It is applied last, outside every other decorator, so that everything between it and the database (timing,
 * caches) sees ciphertext and keeps its own names; registered after the metrics configuration, as decorators of
 * equal order are applied in registration order.
 */
@AutoConfiguration(after = OnceOnlyMetricsAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "onceonly.enabled", matchIfMissing = true)
@ConditionalOnProperty(name = "onceonly.encryption.active-key-id")
@EnableConfigurationProperties(OnceOnlyProperties.class)
public class OnceOnlyEncryptionAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(OnceOnlyEncryptionAutoConfiguration.class);

    @Bean
    @Order(Ordered.LOWEST_PRECEDENCE)
    IdempotencyStoreDecorator encryptingIdempotencyStore(OnceOnlyProperties properties) {
        EncryptionKeys keys = Objects.requireNonNull(properties.encryption().keyRing(), "encryption keys");
        // Ids only: what an operator checks during a rotation, on every instance.
        log.info("Stored responses are encrypted with key '{}'; readable keys: {}{}", keys.activeKeyId(),
                keys.keyIds(), keys.plaintextReadable() ? " and plaintext" : "");
        return store -> new EncryptingIdempotencyStore(store, keys);
    }
}
