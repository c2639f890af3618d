package dev.onceonly.kafka.outbox;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;

class OutboxRelayTest {

    // Neither is ever connected: the builder refuses the table name first.
    private final PGSimpleDataSource unusedDatabase = new PGSimpleDataSource();
    private final KafkaTemplate<String, String> unusedTemplate = new KafkaTemplate<>(
            new DefaultKafkaProducerFactory<>(Map.of(), new StringSerializer(), new StringSerializer()));

    @Test
    void aTableNameThatIsNoPlainIdentifierIsRefused() {
        assertThatThrownBy(() -> OutboxRelay.builder(unusedDatabase, "outbox; DROP TABLE orders", unusedTemplate))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("plain SQL identifier");
    }

    @Test
    void aRelayWithoutTopicIsRefused() {
        assertThatThrownBy(() -> OutboxRelay.builder(unusedDatabase, "payment_outbox", unusedTemplate).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("needs a topic");
    }
}
