package dev.onceonly.kafka;

import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * One in-JVM KRaft broker for every test of the JVM, started by the first test that asks for it and never stopped
 * by a test (it ends with the JVM). Tests isolate themselves by topic: each creates topics of its own with
 * {@link #createTopic}, as the broker creates none on its own.
 */
public final class SharedKafkaBroker {

    private SharedKafkaBroker() {
    }

    /** The {@code bootstrap.servers} of the shared broker, starting it on first use. */
    public static String bootstrapServers() {
        return Holder.BROKER.getBrokersAsString();
    }

    /** Creates {@code name} with {@code partitions} partitions and waits until the broker has it. */
    public static void createTopic(String name, int partitions) {
        Exception failure = Holder.BROKER.addTopicsWithResults(new NewTopic(name, partitions, (short) 1)).get(name);
        if (failure != null) {
            throw new IllegalStateException("Could not create topic " + name, failure);
        }
    }

    /** The lazy holder idiom: the class, and so the broker, is initialised on the first call only. */
    private static final class Holder {

        static final EmbeddedKafkaBroker BROKER = start();

        private static EmbeddedKafkaBroker start() {
            EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, 1);
            // A test that sends to a topic it did not create fails instead of racing auto-creation.
            broker.brokerProperties(Map.of("auto.create.topics.enable", "false"));
            broker.afterPropertiesSet();
            return broker;
        }
    }
}
