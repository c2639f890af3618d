package dev.onceonly.spring.boot.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;

/** The relay's producer keeps the application's connection settings and drops what would break its sends. */
class OutboxProducerTest {

    @Test
    void transactionsAndTheApplicationsSerializersAreDroppedAndTheConnectionSettingsKept() {
        DefaultKafkaProducerFactory<Object, Object> application = new DefaultKafkaProducerFactory<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "broker-1:9093",
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.CLIENT_ID_CONFIG, "orders",
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, "orders-tx",
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, LongSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, LongSerializer.class));
        application.setTransactionIdPrefix("orders-tx-");

        OutboxProducer producer = new OutboxProducer(application);
        try {
            assertThat(producer.template().isTransactional()).isFalse();
            assertThat(producer.template().getProducerFactory().getConfigurationProperties())
                    .containsEntry(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "broker-1:9093")
                    .containsEntry(ProducerConfig.ACKS_CONFIG, "all")
                    .containsEntry(ProducerConfig.CLIENT_ID_CONFIG, "orders-onceonly-outbox")
                    .doesNotContainKeys(ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);
            assertThat(producer.template().getProducerFactory().getValueSerializerSupplier().get())
                    .isInstanceOf(StringSerializer.class);
        } finally {
            producer.destroy();
        }
    }
}
