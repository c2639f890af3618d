package dev.onceonly.kafka.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.IdempotencyEngine;
import dev.onceonly.TransactionRunner;
import dev.onceonly.jdbc.JdbcIdempotencyStore;
import dev.onceonly.jdbc.JdbcSchema;
import dev.onceonly.jdbc.PostgresDialect;
import dev.onceonly.jdbc.SpringTransactionRunner;
import dev.onceonly.kafka.SharedKafkaBroker;
import dev.onceonly.kafka.TopicReader;
import dev.onceonly.kafka.inbox.InboxObserver.Outcome;
import dev.onceonly.kafka.outbox.OutboxRelay;
import dev.onceonly.redis.ShortTtlDedupe;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.aop.Advisor;
import org.springframework.aop.framework.autoproxy.DefaultAdvisorAutoProxyCreator;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.kafka.annotation.EnableKafka;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.util.backoff.FixedBackOff;

/**
 * {@link IdempotentListener} on a real broker (the shared in-JVM KRaft broker) and PostgreSQL: duplicates of a
 * message take effect once, also when offsets were never committed and when consumers join and leave the group
 * while messages flow; a record without a key reaches the dead-letter topic unhandled, without retries.
 */
@Timeout(180)
class IdempotentListenerIT {

    private static final String URL = System.getProperty("onceonly.test.postgres.url",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    /** The topic of the annotated listeners; other tests make topics of their own. */
    private static final String TOPIC = "inbox-it-" + UUID.randomUUID();
    /** The topic of the listener keyed by a business key. */
    private static final String ORDER_EVENTS_TOPIC = "inbox-it-order-events-" + UUID.randomUUID();
    /** The topic of the listener that dedupes in Redis. */
    private static final String SMS_TOPIC = "inbox-it-sms-" + UUID.randomUUID();
    /** The topic of the listener that only sees records without a key. */
    private static final String STRICT_TOPIC = "inbox-it-strict-" + UUID.randomUUID();

    private static HikariDataSource dataSource;
    private static AnnotationConfigApplicationContext context;
    private static KafkaTemplate<String, String> producer;
    private static LettuceConnectionFactory redisConnections;
    private static StringRedisTemplate redis;
    private static JdbcTemplate jdbc;

    @BeforeAll
    static void start() {
        dataSource = new HikariDataSource();
        dataSource.setJdbcUrl(URL);
        dataSource.setMaximumPoolSize(8);
        JdbcSchema.migrate(dataSource, new PostgresDialect());
        jdbc = new JdbcTemplate(dataSource);
        jdbc.execute("CREATE TABLE IF NOT EXISTS inbox_it_effect (id bigserial PRIMARY KEY, "
                + "consumer varchar(255) NOT NULL, message varchar(255) NOT NULL)");
        SharedKafkaBroker.createTopic(TOPIC, 2);
        SharedKafkaBroker.createTopic(TOPIC + "-dlt", 2);
        SharedKafkaBroker.createTopic(ORDER_EVENTS_TOPIC, 2);
        SharedKafkaBroker.createTopic(ORDER_EVENTS_TOPIC + "-dlt", 2);
        SharedKafkaBroker.createTopic(STRICT_TOPIC, 2);
        SharedKafkaBroker.createTopic(SMS_TOPIC, 2);
        SharedKafkaBroker.createTopic(SMS_TOPIC + "-dlt", 2);
        SharedKafkaBroker.createTopic(STRICT_TOPIC + "-dlt", 2);
        producer = new KafkaTemplate<>(new DefaultKafkaProducerFactory<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafkaBroker.bootstrapServers()),
                new StringSerializer(), new StringSerializer()));
        redisConnections = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1",
                Integer.getInteger("onceonly.test.redis.port", 6379)));
        redisConnections.afterPropertiesSet();
        redisConnections.start();
        redis = new StringRedisTemplate(redisConnections);
        context = new AnnotationConfigApplicationContext(ListenerConfiguration.class);
    }

    @AfterAll
    static void stop() {
        context.close();
        producer.destroy();
        redisConnections.destroy();
        dataSource.close();
    }

    @BeforeEach
    void forgetOutcomes() {
        context.getBean(RecordingObserver.class).outcomes.clear();
    }

    @Test
    void sameMessagePublishedThreeTimesTakesEffectOnce() {
        String eventId = "evt-" + UUID.randomUUID();
        for (int i = 0; i < 3; i++) {
            send(TOPIC, "order-1", eventId, eventId);
        }

        awaitOutcomes("orders", 3);
        assertThat(outcomes("orders")).containsExactlyInAnyOrder(Outcome.HANDLED, Outcome.DUPLICATE,
                Outcome.DUPLICATE);
        assertThat(effects("orders", eventId)).isEqualTo(1);
    }

    @Test
    void effectOutsideTheDatabaseDedupedInRedisRunsOnceForThreePublications() {
        String eventId = "evt-" + UUID.randomUUID();
        for (int i = 0; i < 3; i++) {
            send(SMS_TOPIC, "order-3", eventId, "your order shipped");
        }

        awaitOutcomes("sms", 3);
        assertThat(outcomes("sms")).containsExactlyInAnyOrder(Outcome.HANDLED, Outcome.DUPLICATE, Outcome.DUPLICATE);
        assertThat(context.getBean(OrderListeners.class).smsSent()).isEqualTo(1);
    }

    @Test
    void businessKeyFromTheExtractorWithDotsAndColonsDeduplicatesMessagesWithoutAnEventId() {
        String order = "order-" + UUID.randomUUID();
        // The producer sent the same business event twice, the second time with a newer timestamp in it.
        producer.send(typed(ORDER_EVENTS_TOPIC, order, "order.paid", order + " paid at 10:00")).join();
        producer.send(typed(ORDER_EVENTS_TOPIC, order, "order.paid", order + " paid at 10:01")).join();
        producer.send(typed(ORDER_EVENTS_TOPIC, order, "order.shipped", order + " shipped")).join();

        awaitOutcomes("order-events", 3);
        assertThat(outcomes("order-events")).containsExactlyInAnyOrder(Outcome.HANDLED, Outcome.DUPLICATE,
                Outcome.HANDLED);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM inbox_it_effect WHERE consumer = 'order-events' "
                + "AND message LIKE ?", Integer.class, order + " paid at%")).isEqualTo(1);
    }

    @Test
    void recordWithoutAKeyIsRefusedToTheDeadLetterTopicUnhandledAndWithoutRetries() {
        String marker = "unkeyed-" + UUID.randomUUID();
        producer.send(new ProducerRecord<>(STRICT_TOPIC, "order-2", marker)).join();

        List<String> deadLetters = TopicReader.readAtLeast(STRICT_TOPIC + "-dlt", 1).stream()
                .map(record -> record.value()).toList();
        // Refused once: a key that is missing never gets better by retrying.
        assertThat(deadLetters).containsExactly(marker);
        assertThat(outcomes("strict")).containsExactly(Outcome.FAILED);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM inbox_it_effect WHERE message = ?", Integer.class,
                marker)).isZero();
    }

    @Test
    void recordsHandledByAConsumerThatNeverCommittedItsOffsetsAreRedeliveredAndTakeEffectOnce() {
        String topic = "inbox-it-uncommitted-" + UUID.randomUUID();
        SharedKafkaBroker.createTopic(topic, 2);
        String group = "uncommitted-" + UUID.randomUUID();
        List<String> eventIds = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String eventId = "evt-" + UUID.randomUUID();
            eventIds.add(eventId);
            send(topic, "order-" + i, eventId, "paid");
        }

        // Manual acknowledgement that never comes: the consumer handles every record and commits no offset, as one
        // killed before its commit.
        ConcurrentMessageListenerContainer<String, String> first = container(topic, group,
                ContainerProperties.AckMode.MANUAL);
        first.start();
        awaitOutcomes(group, 20);
        first.stop();
        ConcurrentMessageListenerContainer<String, String> restarted = container(topic, group,
                ContainerProperties.AckMode.BATCH);
        restarted.start();
        awaitOutcomes(group, 40);
        restarted.stop();

        assertThat(outcomes(group)).filteredOn(outcome -> outcome == Outcome.DUPLICATE).hasSize(20);
        assertThat(eventIds).allSatisfy(eventId -> assertThat(effects(group, eventId)).isEqualTo(1));
    }

    @Test
    void consumersJoiningAndLeavingTheGroupWhileMessagesFlowApplyEachMessageExactlyOnce() throws Exception {
        String topic = "inbox-it-rebalance-" + UUID.randomUUID();
        SharedKafkaBroker.createTopic(topic, 6);
        String group = "rebalance-" + UUID.randomUUID();
        ConcurrentMessageListenerContainer<String, String> one = container(topic, group,
                ContainerProperties.AckMode.BATCH);
        ConcurrentMessageListenerContainer<String, String> two = container(topic, group,
                ContainerProperties.AckMode.BATCH);
        ConcurrentMessageListenerContainer<String, String> three = container(topic, group,
                ContainerProperties.AckMode.BATCH);
        one.start();
        two.start();
        List<String> eventIds = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String eventId = "evt-" + UUID.randomUUID();
            eventIds.add(eventId);
            // Every message twice, as a producer that retried: duplicates are certain, rebalances add more.
            send(topic, "order-" + (i % 30), eventId, "paid");
            send(topic, "order-" + (i % 30), eventId, "paid");
            if (i == 100) {
                three.start();
            }
            if (i == 200) {
                one.stop();
            }
            if (i % 50 == 0) {
                Thread.sleep(200); // lets the group settle into each membership while messages flow
            }
        }

        await().atMost(Duration.ofSeconds(120)).until(() -> jdbc.queryForObject(
                "SELECT count(DISTINCT message) FROM inbox_it_effect WHERE consumer = ?", Integer.class, group) == 300);
        two.stop();
        three.stop();

        assertThat(jdbc.queryForObject("SELECT count(*) FROM inbox_it_effect WHERE consumer = ?", Integer.class,
                group)).isEqualTo(300);
        assertThat(jdbc.queryForList("SELECT message FROM inbox_it_effect WHERE consumer = ?", String.class, group))
                .containsExactlyInAnyOrderElementsOf(eventIds);
        assertThat(outcomes(group)).filteredOn(outcome -> outcome == Outcome.DUPLICATE).hasSizeGreaterThanOrEqualTo(300);
    }

    /** A container of the annotated listener's factory whose records go to the group's listener. */
    private static ConcurrentMessageListenerContainer<String, String> container(String topic, String group,
            ContainerProperties.AckMode ackMode) {
        @SuppressWarnings("unchecked")
        ConcurrentKafkaListenerContainerFactory<String, String> factory =
                context.getBean(ConcurrentKafkaListenerContainerFactory.class);
        ConcurrentMessageListenerContainer<String, String> container = factory.createContainer(topic);
        container.getContainerProperties().setGroupId(group);
        container.getContainerProperties().setAckMode(ackMode);
        GroupListener listener = context.getBean(GroupListener.class);
        container.getContainerProperties().setMessageListener(
                (MessageListener<String, String>) record -> listener.on(record.headers().lastHeader(
                        OutboxRelay.EVENT_ID_HEADER) == null ? record.value()
                        : new String(record.headers().lastHeader(OutboxRelay.EVENT_ID_HEADER)
                        .value(), StandardCharsets.UTF_8)));
        return container;
    }

    private static void send(String topic, String key, String eventId, String payload) {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, key, payload);
        record.headers().add(OutboxRelay.EVENT_ID_HEADER, eventId.getBytes(StandardCharsets.UTF_8));
        producer.send(record).join();
    }

    private static ProducerRecord<String, String> typed(String topic, String key, String type, String payload) {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, key, payload);
        record.headers().add("event-type", type.getBytes(StandardCharsets.UTF_8));
        return record;
    }

    private static void awaitOutcomes(String consumer, int count) {
        await().atMost(Duration.ofSeconds(60)).alias(consumer + " saw " + count + " outcomes")
                .until(() -> outcomes(consumer).size() >= count);
    }

    private static List<Outcome> outcomes(String consumer) {
        return context.getBean(RecordingObserver.class).outcomes.stream()
                .filter(seen -> seen.consumer().equals(consumer)).map(Seen::outcome).toList();
    }

    private static int effects(String consumer, String message) {
        return jdbc.queryForObject("SELECT count(*) FROM inbox_it_effect WHERE consumer = ? AND message = ?",
                Integer.class, consumer, message);
    }

    private record Seen(String consumer, Outcome outcome) {
    }

    static final class RecordingObserver implements InboxObserver {
        final Queue<Seen> outcomes = new ConcurrentLinkedQueue<>();

        @Override
        public void observed(String consumer, Outcome outcome) {
            outcomes.add(new Seen(consumer, outcome));
        }
    }

    /** The annotated listeners, as an application writes them: one line each makes them idempotent. */
    static class OrderListeners {

        private final JdbcTemplate jdbc;
        private final AtomicInteger smsSent = new AtomicInteger();

        OrderListeners(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @KafkaListener(id = "orders", topics = "#{T(dev.onceonly.kafka.inbox.IdempotentListenerIT).topic()}",
                groupId = "orders")
        @IdempotentListener
        public void on(String payload) {
            jdbc.update("INSERT INTO inbox_it_effect (consumer, message) VALUES ('orders', ?)", payload);
        }

        @KafkaListener(id = "order-events",
                topics = "#{T(dev.onceonly.kafka.inbox.IdempotentListenerIT).orderEventsTopic()}",
                groupId = "order-events")
        @IdempotentListener(consumer = "order-events", key = "orderEventKey", retention = "P14D")
        public void onEvent(String payload) {
            jdbc.update("INSERT INTO inbox_it_effect (consumer, message) VALUES ('order-events', ?)", payload);
        }

        @KafkaListener(id = "sms", topics = "#{T(dev.onceonly.kafka.inbox.IdempotentListenerIT).smsTopic()}",
                groupId = "sms")
        @IdempotentListener(redisTtl = "PT1H")
        public void onShipped(String text) {
            smsSent.incrementAndGet(); // an SMS gateway would be called here, outside any transaction
        }

        /** Read through the proxy, which has no state of its own. */
        public int smsSent() {
            return smsSent.get();
        }

        @KafkaListener(id = "strict", topics = "#{T(dev.onceonly.kafka.inbox.IdempotentListenerIT).strictTopic()}",
                groupId = "strict")
        @IdempotentListener
        public void onStrict(String payload) {
            jdbc.update("INSERT INTO inbox_it_effect (consumer, message) VALUES ('strict', ?)", payload);
        }
    }

    /** The listener of the containers a test makes: its consumer is the group it runs in. */
    static class GroupListener {

        private final JdbcTemplate jdbc;

        GroupListener(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @IdempotentListener
        public void on(String eventId) {
            jdbc.update("INSERT INTO inbox_it_effect (consumer, message) VALUES (?, ?)",
                    org.springframework.kafka.support.KafkaUtils.getConsumerGroupId(), eventId);
        }
    }

    public static String topic() {
        return TOPIC;
    }

    public static String orderEventsTopic() {
        return ORDER_EVENTS_TOPIC;
    }

    public static String smsTopic() {
        return SMS_TOPIC;
    }

    public static String strictTopic() {
        return STRICT_TOPIC;
    }

    @Configuration(proxyBeanMethods = false)
    @EnableKafka
    static class ListenerConfiguration {

        @Bean
        static DefaultAdvisorAutoProxyCreator autoProxyCreator() {
            DefaultAdvisorAutoProxyCreator creator = new DefaultAdvisorAutoProxyCreator();
            creator.setProxyTargetClass(true);
            return creator;
        }

        @Bean
        JdbcTransactionManager transactionManager() {
            return new JdbcTransactionManager(dataSource);
        }

        @Bean
        RecordingObserver observer() {
            return new RecordingObserver();
        }

        @Bean
        IdempotentListeners idempotentListeners(JdbcTransactionManager transactionManager, BeanFactory beans,
                RecordingObserver observer) {
            // A leased engine, as with onceonly.mode=leased: the listeners still join or begin the store's
            // transactions, through the runner they are given.
            IdempotencyEngine engine = IdempotencyEngine.builder(JdbcIdempotencyStore.create(dataSource,
                    new PostgresDialect())).build();
            TransactionRunner transactions = new SpringTransactionRunner(new TransactionTemplate(transactionManager));
            return new IdempotentListeners(engine, transactions, beans, Duration.ofDays(8),
                    OutboxRelay.EVENT_ID_HEADER, observer, (consumer, key, ttl, effect) ->
                            new ShortTtlDedupe(redis, consumer, ttl, Duration.ofMinutes(1)).runOnce(key, effect::run));
        }

        @Bean
        static Advisor idempotentListenerAdvisor(org.springframework.beans.factory.ObjectProvider<IdempotentListeners>
                listeners) {
            return IdempotentListeners.advisor(invocation -> listeners.getObject().invoke(invocation));
        }

        @Bean
        MessageKeyExtractor orderEventKey() {
            return record -> record.key() == null || record.headers().lastHeader("event-type") == null ? null
                    : record.key() + ":" + new String(record.headers().lastHeader("event-type").value(),
                    StandardCharsets.UTF_8);
        }

        @Bean
        ConcurrentKafkaListenerContainerFactory<String, String> kafkaListenerContainerFactory() {
            ConcurrentKafkaListenerContainerFactory<String, String> factory =
                    new ConcurrentKafkaListenerContainerFactory<>();
            factory.setConsumerFactory(new DefaultKafkaConsumerFactory<>(Map.of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafkaBroker.bootstrapServers(),
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                    ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
                    new StringDeserializer(), new StringDeserializer()));
            DefaultErrorHandler errorHandler = new DefaultErrorHandler(new DeadLetterPublishingRecoverer(producer),
                    new FixedBackOff(100, 2));
            // What the starter does to every DefaultErrorHandler bean.
            errorHandler.addNotRetryableExceptions(MessageKeyException.class);
            factory.setCommonErrorHandler(errorHandler);
            IdempotentListeners.install(factory);
            return factory;
        }

        @Bean
        JdbcTemplate jdbcTemplate() {
            return new JdbcTemplate(dataSource);
        }

        @Bean
        OrderListeners orderListeners(JdbcTemplate jdbcTemplate) {
            return new OrderListeners(jdbcTemplate);
        }

        @Bean
        GroupListener groupListener(JdbcTemplate jdbcTemplate) {
            return new GroupListener(jdbcTemplate);
        }
    }
}
