package dev.onceonly.spring.boot.kafka;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.core.ProducerFactory;
import org.springframework.kafka.support.LoggingProducerListener;

/**
 * The outbox relay's producer, made from the application's producer settings (brokers, security, acks): String
 * keys and values whatever serializers the application uses (the row's JSON text is sent as it is), never
 * transactional (the relay's database transaction makes a round atomic), and a producer listener that logs no
 * record contents on a failed send. Not a {@code ProducerFactory} or {@code KafkaTemplate} bean, which would make
 * Boot's own back off; closed with the context.
 */
final class OutboxProducer implements DisposableBean {

    private final DefaultKafkaProducerFactory<String, String> factory;
    private final KafkaTemplate<String, String> template;

    OutboxProducer(ProducerFactory<?, ?> applicationProducers) {
        Map<String, Object> settings = new HashMap<>(applicationProducers.getConfigurationProperties());
        settings.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
        settings.remove(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG);
        settings.remove(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);
        // Producers of the same client id would clash in JMX and merge their metrics.
        Object clientId = settings.get(ProducerConfig.CLIENT_ID_CONFIG);
        settings.put(ProducerConfig.CLIENT_ID_CONFIG, (clientId == null ? "" : clientId + "-") + "onceonly-outbox");
        this.factory = new DefaultKafkaProducerFactory<>(settings, new StringSerializer(), new StringSerializer());
        this.template = new KafkaTemplate<>(factory);
        LoggingProducerListener<String, String> quiet = new LoggingProducerListener<>();
        quiet.setIncludeContents(false);
        template.setProducerListener(quiet);
    }

    KafkaTemplate<String, String> template() {
        return template;
    }

    @Override
    public void destroy() {
        factory.destroy();
    }
}
