package dev.onceonly.spring.boot;

import dev.onceonly.crypto.EncryptionKeys;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Encryption at rest of stored responses when {@code onceonly.encryption.active-key-id} is set, with the keys of
 * {@code onceonly.encryption.keys}. Keys from elsewhere (a secret manager) need no properties: define an
 * {@link EncryptionKeys} bean. The engine's configuration wraps the store in an
 * {@link dev.onceonly.crypto.EncryptingIdempotencyStore} outside every {@link IdempotencyStoreDecorator}, so that
 * everything between it and the database (timing, caches) sees ciphertext and keeps its own names.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "onceonly.enabled", matchIfMissing = true)
@ConditionalOnProperty(name = "onceonly.encryption.active-key-id")
@EnableConfigurationProperties(OnceOnlyProperties.class)
public class OnceOnlyEncryptionAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(OnceOnlyEncryptionAutoConfiguration.class);

    @Bean
    @ConditionalOnMissingBean
    EncryptionKeys onceOnlyEncryptionKeys(OnceOnlyProperties properties) {
        EncryptionKeys keys = Objects.requireNonNull(properties.encryption().keyRing(), "encryption keys");
        // Ids only: what an operator checks during a rotation, on every instance.
        log.info("Stored responses are encrypted with key '{}'; readable keys: {}{}", keys.activeKeyId(),
                keys.keyIds(), keys.plaintextReadable() ? " and plaintext" : "");
        return keys;
    }
}
