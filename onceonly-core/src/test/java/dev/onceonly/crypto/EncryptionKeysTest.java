package dev.onceonly.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.onceonly.IdempotencyConfigurationException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EncryptionKeysTest {

    private static final byte[] KEY = new byte[32];
    private static final byte[] SHORT_KEY = "sixteen-byte-key".getBytes(StandardCharsets.US_ASCII);

    @Test
    void keyOfAnotherLengthThan256BitsIsRefusedWithoutQuotingIt() {
        assertThatThrownBy(() -> EncryptionKeys.of("k1", Map.of("k1", SHORT_KEY)))
                .isInstanceOfSatisfying(IdempotencyConfigurationException.class, e -> {
                    assertThat(e.setting()).isEqualTo("keys.k1");
                    assertThat(e.problem()).contains("32 bytes", "16 bytes");
                    assertThat(e.getMessage()).doesNotContain("sixteen-byte-key",
                            Base64.getEncoder().encodeToString(SHORT_KEY));
                });
    }

    @Test
    void activeKeyIdMustBeAmongTheKeys() {
        assertThatThrownBy(() -> EncryptionKeys.of("k2", Map.of("k1", KEY)))
                .isInstanceOfSatisfying(IdempotencyConfigurationException.class, e -> {
                    assertThat(e.setting()).isEqualTo("activeKeyId");
                    assertThat(e.problem()).contains("'k2'", "[k1]");
                });
    }

    @Test
    void keyIdsAreShortPlainNames() {
        assertThatThrownBy(() -> EncryptionKeys.of("k 1", Map.of("k 1", KEY)))
                .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("key ids");
    }

    @Test
    void describesItsIdsOnly() {
        EncryptionKeys keys = EncryptionKeys.of("k2", Map.of("k1", KEY, "k2", KEY));

        assertThat(keys.activeKeyId()).isEqualTo("k2");
        assertThat(keys.keyIds()).containsExactlyInAnyOrder("k1", "k2");
        assertThat(keys.toString()).startsWith("EncryptionKeys[active=k2, readable=[").endsWith("and plaintext]")
                .doesNotContain(Base64.getEncoder().encodeToString(KEY));
        assertThat(keys.refusingPlaintext().toString()).endsWith("]]");
    }
}
