package dev.onceonly.kafka.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.onceonly.kafka.SharedKafkaBroker;
import dev.onceonly.kafka.TopicReader;
import dev.onceonly.spi.Purgeable;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.support.LoggingProducerListener;

/**
 * What {@link OutboxRelay} guarantees on every database: run by one concrete class per database against the real
 * database and the shared in-JVM broker. Each test has a table and a topic of its own.
 */
abstract class OutboxRelayContract {

    /** The JDBC URL of the database. */
    protected abstract String url();

    /** Creates {@code table} with the layout the relay requires, and the indexes it advises. */
    protected abstract List<String> createTable(String table);

    /** The insert parameter of a JSON payload. */
    protected abstract String payloadParameter();

    /** The id of the current session, as {@link #killSessionSql()} and {@link #sessionCountSql()} take it. */
    protected abstract String sessionIdSql();

    /** Ends the session whose id is the parameter, from another session. */
    protected abstract String killSessionSql();

    /** Counts the sessions whose id is the parameter. */
    protected abstract String sessionCountSql();

    /** Whether a second relay publishes while one is in a round: on other aggregates, or not at all. */
    protected abstract boolean relaysRunConcurrently();

    private final List<AutoCloseable> resources = new ArrayList<>();
    private String table;
    private String topic;

    @BeforeEach
    void createTableAndTopic() throws SQLException {
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        table = "relay_outbox_" + suffix;
        topic = "relay-" + suffix;
        for (String sql : createTable(table)) {
            execute(sql);
        }
        SharedKafkaBroker.createTopic(topic, 3);
    }

    @AfterEach
    void dropTable() throws Exception {
        for (AutoCloseable resource : resources.reversed()) {
            resource.close();
        }
        execute("DROP TABLE " + table);
    }

    @Test
    void rowsArePublishedWithKeyHeadersAndPayloadAndMarkedPublished() throws SQLException {
        insert(7, "order.placed", "e-1", "{\"order\": 7}");
        insert(8, "order.placed", "e-2", "{\"order\": 8}");
        OutboxRelay relay = relay(database(), template()).build();
        assertThat(relay.oldestUnpublished()).isPresent();

        int published = relay.publishPending();

        assertThat(published).isEqualTo(2);
        assertThat(relay.publishedRows()).isEqualTo(2);
        assertThat(relay.refusedSends()).isZero();
        assertThat(relay.oldestUnpublished()).isEmpty();
        List<ConsumerRecord<String, String>> records = TopicReader.readAtLeast(topic, 2);
        assertThat(records).extracting(ConsumerRecord::key, r -> header(r, OutboxRelay.EVENT_ID_HEADER),
                        r -> header(r, OutboxRelay.EVENT_TYPE_HEADER))
                .containsExactlyInAnyOrder(tuple("7", "e-1", "order.placed"),
                        tuple("8", "e-2", "order.placed"));
        assertThat(records).extracting(r -> r.value().replace(" ", ""))
                .containsExactlyInAnyOrder("{\"order\":7}", "{\"order\":8}");
        assertThat(unpublished()).isZero();
        assertThat(relay.publishPending()).isZero();
    }

    @Test
    void publishedRowsOlderThanTheRetentionAreDeletedOldestFirstAndUnpublishedRowsNever() throws SQLException {
        Instant publishedAt = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        insert(1, "order.placed", "old-1", "{}");
        insert(2, "order.placed", "old-2", "{}");
        insert(3, "order.placed", "old-3", "{}");
        OutboxRelay relay = relay(database(), template()).clock(Clock.fixed(publishedAt, ZoneOffset.UTC)).build();
        relay.publishPending();
        insert(4, "order.placed", "waiting-4", "{}");
        Purgeable published = relay.expiredPublishedRows(Duration.ofHours(1));

        int early = published.purge(publishedAt.plus(Duration.ofMinutes(59)), 100);
        int first = published.purge(publishedAt.plus(Duration.ofHours(1)), 2);
        boolean newestLeftAfterTheFirstBatch = queryLong("SELECT count(*) FROM " + table
                + " WHERE event_id = 'old-3'") == 1 && queryLong("SELECT count(*) FROM " + table) == 2;
        List<Integer> rest = List.of(published.purge(publishedAt.plus(Duration.ofHours(1)), 2),
                published.purge(publishedAt.plus(Duration.ofHours(1)), 2));

        assertThat(published.name()).isEqualTo("outbox");
        assertThat(early).isZero();
        assertThat(first).isEqualTo(2);
        assertThat(newestLeftAfterTheFirstBatch).as("the oldest two go first").isTrue();
        assertThat(rest).containsExactly(1, 0);
        assertThat(queryLong("SELECT count(*) FROM " + table)).isEqualTo(1);
        assertThat(isUnpublished("waiting-4")).isTrue();
        assertThatThrownBy(() -> relay.expiredPublishedRows(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anAggregatesRowsArePublishedInIdOrder() throws SQLException {
        for (int i = 1; i <= 4; i++) {
            insert(1, "order.changed", "a-" + i, "{}");
        }
        insert(2, "order.changed", "b-1", "{}");

        int published = relay(database(), template()).batchSize(10).build().publishPending();

        assertThat(published).isEqualTo(5);
        assertThat(TopicReader.readAtLeast(topic, 5)).filteredOn(r -> r.key().equals("1"))
                .extracting(r -> header(r, OutboxRelay.EVENT_ID_HEADER))
                .containsExactly("a-1", "a-2", "a-3", "a-4");
    }

    @Test
    void aHeadInAnUnfinishedRoundHoldsBackTheRestOfItsAggregate() throws Exception {
        insert(1, "order.changed", "x-1", "{}");
        insert(1, "order.changed", "x-2", "{}");
        insert(2, "order.changed", "y-1", "{}");
        CountDownLatch acknowledged = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        KafkaTemplate<String, String> pausedTemplate = template();
        // Holds the first round between its acknowledgement and its mark, with x-1 selected and not yet published.
        pausedTemplate.setProducerInterceptor(new AcknowledgementHook(() -> {
            if (acknowledged.getCount() > 0) {
                acknowledged.countDown();
                awaitQuietly(resume);
            }
        }));
        OutboxRelay paused = relay(newPool("relay-paused", 1), pausedTemplate).batchSize(1).build();
        OutboxRelay other = relay(newPool("relay-other", 1), template()).build();
        ExecutorService executor = Executors.newSingleThreadExecutor();
        resources.add(executor::shutdownNow);
        Future<Integer> pausedRun = executor.submit(paused::publishPending);
        acknowledged.await();

        int otherPublished = other.publishPending();
        boolean secondHeldBack = isUnpublished("x-2");
        resume.countDown();
        pausedRun.get();

        assertThat(secondHeldBack).isTrue();
        // y-1 only, never x-2; or nothing, where one relay publishes at a time.
        assertThat(otherPublished).isEqualTo(relaysRunConcurrently() ? 1 : 0);
        assertThat(unpublished()).isZero();
        assertThat(TopicReader.readAtLeast(topic, 3)).filteredOn(r -> r.key().equals("1"))
                .extracting(r -> header(r, OutboxRelay.EVENT_ID_HEADER)).containsExactly("x-1", "x-2");
    }

    @Test
    void aSessionThatDiesBetweenSendAndMarkIsPublishedAgainWithTheSameEventId() throws Exception {
        insert(3, "order.paid", "paid-3", "{\"order\": 3}");
        HikariDataSource relayPool = newPool("relay-killed", 1);
        long relaySession = sessionIdOf(relayPool);
        KafkaTemplate<String, String> template = template();
        AtomicBoolean killed = new AtomicBoolean();
        // Runs on the acknowledgement before the send's future completes, so before the relay marks the row.
        template.setProducerInterceptor(new AcknowledgementHook(() -> {
            if (killed.compareAndSet(false, true)) {
                kill(relaySession);
            }
        }));
        OutboxRelay relay = relay(relayPool, template).build();

        assertThatThrownBy(relay::publishPending).isInstanceOf(OutboxRelayException.class);
        assertThat(killed).isTrue();
        assertThat(unpublished()).isEqualTo(1);
        // The pool may first hand out the dead connection again, or (MariaDB) find the dead session's lock not yet
        // released: retry until a round publishes the row.
        await().atMost(Duration.ofSeconds(20)).ignoreExceptionsInstanceOf(OutboxRelayException.class)
                .until(() -> relay.publishPending() == 1);

        assertThat(TopicReader.readAtLeast(topic, 2)).extracting(r -> header(r, OutboxRelay.EVENT_ID_HEADER))
                .containsExactly("paid-3", "paid-3");
        assertThat(unpublished()).isZero();
        assertThat(relay.publishPending()).isZero();
    }

    @Test
    void concurrentRelaysPublishEveryAggregatesEventsInOrder() throws Exception {
        int aggregates = 20;
        int rows = 300;
        List<OutboxPoller> pollers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            OutboxRelay relay = relay(newPool("relay-" + i, 2), template()).batchSize(7).build();
            pollers.add(new OutboxPoller(relay, Duration.ofMillis(5), Duration.ofMillis(50)));
        }
        Map<Long, List<String>> expected = new HashMap<>();

        pollers.forEach(OutboxPoller::start);
        Random random = new Random(11);
        for (int i = 0; i < rows; i++) {
            long aggregate = random.nextInt(aggregates);
            List<String> events = expected.computeIfAbsent(aggregate, ignored -> new ArrayList<>());
            String eventId = aggregate + "-" + events.size();
            insert(aggregate, "order.changed", eventId, "{}");
            events.add(eventId);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> unpublished() == 0);
        pollers.forEach(OutboxPoller::stop);

        assertThat(pollers).noneMatch(OutboxPoller::isRunning);
        Map<Long, Set<String>> firstSeen = new HashMap<>();
        for (ConsumerRecord<String, String> record : TopicReader.readAtLeast(topic, rows)) {
            firstSeen.computeIfAbsent(Long.valueOf(record.key()), ignored -> new LinkedHashSet<>())
                    .add(header(record, OutboxRelay.EVENT_ID_HEADER));
        }
        assertThat(firstSeen).hasSameSizeAs(expected);
        expected.forEach((aggregate, events) ->
                assertThat(firstSeen.get(aggregate)).as("aggregate %s", aggregate).containsExactlyElementsOf(events));
    }

    @Test
    void aPollerPublishesAgainAfterAFailedRun() throws SQLException {
        insert(4, "order.placed", "retried-4", "{}");
        AtomicInteger routed = new AtomicInteger();
        OutboxRelay relay = relay(database(), template()).topicForEventType(type -> {
            if (routed.getAndIncrement() == 0) {
                throw new IllegalStateException("no route yet");
            }
            return topic;
        }).build();
        OutboxPoller poller = new OutboxPoller(relay, Duration.ofMillis(5), Duration.ofMillis(20));
        resources.add(poller::stop);

        poller.start();

        await().atMost(Duration.ofSeconds(10)).until(() -> unpublished() == 0);
        assertThat(routed).hasValueGreaterThan(1);
        assertThat(TopicReader.readAtLeast(topic, 1)).extracting(r -> header(r, OutboxRelay.EVENT_ID_HEADER))
                .containsExactly("retried-4");
    }

    @Test
    void aRefusedSendHoldsBackItsOwnAggregateOnlyAndTheRestOfTheRoundIsPublished() throws SQLException {
        insert(5, "order.placed", "ok-5", "{}");
        insert(6, "order.lost", "lost-6", "{}");
        insert(6, "order.placed", "after-6", "{}");
        OutboxRelay relay = relay(database(), template())
                .topicForEventType(type -> type.equals("order.lost") ? "relay-no-such-topic-" + UUID.randomUUID()
                        : topic)
                .sendTimeout(Duration.ofSeconds(5))
                // A clock that stands still: a refused row stays held back however slow the machine is.
                .clock(Clock.fixed(Instant.now(), ZoneOffset.UTC))
                .build();

        // The first round publishes ok-5; the next finds only the refused head left, held back for a while.
        assertThat(relay.publishPending()).isEqualTo(1);
        assertThat(relay.refusedSends()).isEqualTo(1);

        assertThat(isUnpublished("ok-5")).isFalse();
        assertThat(isUnpublished("lost-6")).isTrue();
        assertThat(isUnpublished("after-6")).isTrue();
        assertThat(TopicReader.readAtLeast(topic, 1)).extracting(r -> header(r, OutboxRelay.EVENT_ID_HEADER))
                .containsExactly("ok-5");
    }

    @Test
    void refusedRowsAreHeldBackSoThatTheyCannotCrowdOutTheRowsBehindThem() throws SQLException {
        insert(6, "order.unroutable", "lost-6", "{}");
        insert(5, "order.placed", "ok-5", "{}");
        OutboxRelay relay = relay(database(), template()).batchSize(1)
                .topicForEventType(type -> {
                    if (type.equals("order.unroutable")) {
                        throw new IllegalArgumentException("no topic for " + type); // no retry changes that
                    }
                    return topic;
                })
                .sendTimeout(Duration.ofSeconds(5))
                // A clock that stands still: a refused row stays held back however slow the machine is.
                .clock(Clock.fixed(Instant.now(), ZoneOffset.UTC))
                .build();

        // The oldest head fills the one-row batch and is refused for good.
        assertThatThrownBy(relay::publishPending).isInstanceOf(OutboxRelayException.class);
        // Held back now, it leaves the batch to the row behind it.
        assertThat(relay.publishPending()).isEqualTo(1);

        assertThat(isUnpublished("ok-5")).isFalse();
        assertThat(isUnpublished("lost-6")).isTrue();
    }

    @Test
    void aRoundWhereNothingGotThroughHoldsNothingBackForWhenTheBrokerIsThere() throws SQLException {
        insert(8, "order.placed", "wait-8", "{}");
        AtomicInteger sends = new AtomicInteger();
        String missing = "relay-no-such-topic-" + UUID.randomUUID();
        OutboxRelay relay = relay(database(), template()).batchSize(1)
                .topicForEventType(type -> {
                    sends.incrementAndGet();
                    return missing; // times out as an unreachable broker does
                })
                .sendTimeout(Duration.ofSeconds(5))
                .clock(Clock.fixed(Instant.now(), ZoneOffset.UTC))
                .build();

        assertThatThrownBy(relay::publishPending).isInstanceOf(OutboxRelayException.class);
        assertThatThrownBy(relay::publishPending).isInstanceOf(OutboxRelayException.class);

        assertThat(sends).hasValue(2);
        assertThat(isUnpublished("wait-8")).isTrue();
    }

    private HikariDataSource database() {
        return OutboxTestDatabases.shared(url());
    }

    /** A pool of its own, for a relay whose sessions are counted or killed; closed after the test. */
    private HikariDataSource newPool(String name, int size) {
        return closeLater(OutboxTestDatabases.pool(url(), name, size));
    }

    private OutboxRelay.Builder relay(DataSource dataSource, KafkaTemplate<String, String> template) {
        return OutboxRelay.builder(dataSource, table, template).topic(topic);
    }

    private KafkaTemplate<String, String> template() {
        DefaultKafkaProducerFactory<String, String> factory = new DefaultKafkaProducerFactory<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedKafkaBroker.bootstrapServers(),
                // A send to a topic that does not exist fails within the relay's send timeout.
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 2_000,
                ProducerConfig.LINGER_MS_CONFIG, 0), new StringSerializer(), new StringSerializer());
        resources.add(factory::destroy);
        KafkaTemplate<String, String> template = new KafkaTemplate<>(factory);
        LoggingProducerListener<String, String> withoutPayloads = new LoggingProducerListener<>();
        withoutPayloads.setIncludeContents(false);
        template.setProducerListener(withoutPayloads);
        return template;
    }

    private <T extends AutoCloseable> T closeLater(T resource) {
        resources.add(resource);
        return resource;
    }

    private void insert(long aggregate, String eventType, String eventId, String payload) throws SQLException {
        try (Connection connection = database().getConnection();
             PreparedStatement statement = connection.prepareStatement("INSERT INTO " + table
                     + " (aggregate_id, event_type, event_id, payload) VALUES (?, ?, ?, " + payloadParameter()
                     + ")")) {
            statement.setLong(1, aggregate);
            statement.setString(2, eventType);
            statement.setString(3, eventId);
            statement.setString(4, payload);
            statement.executeUpdate();
        }
    }

    private long unpublished() throws SQLException {
        return queryLong("SELECT count(*) FROM " + table + " WHERE published_at IS NULL");
    }

    private boolean isUnpublished(String eventId) throws SQLException {
        try (Connection connection = database().getConnection();
             PreparedStatement statement = connection.prepareStatement("SELECT count(*) FROM " + table
                     + " WHERE event_id = ? AND published_at IS NULL")) {
            statement.setString(1, eventId);
            try (ResultSet result = statement.executeQuery()) {
                result.next();
                return result.getLong(1) == 1;
            }
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private long sessionIdOf(DataSource pool) throws SQLException {
        try (Connection connection = pool.getConnection();
             Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery(sessionIdSql())) {
            result.next();
            return result.getLong(1);
        }
    }

    /** Ends the session and waits until it is gone, so that the relay's next statement finds it dead. */
    private void kill(long session) {
        try (Connection connection = database().getConnection();
             PreparedStatement statement = connection.prepareStatement(killSessionSql())) {
            statement.setLong(1, session);
            statement.execute();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> queryLong(sessionCountSql(), session) == 0);
    }

    private long queryLong(String sql, long... parameters) throws SQLException {
        try (Connection connection = database().getConnection();
             PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setLong(i + 1, parameters[i]);
            }
            try (ResultSet result = statement.executeQuery()) {
                result.next();
                return result.getLong(1);
            }
        }
    }

    private void execute(String sql) throws SQLException {
        try (Connection connection = database().getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static String header(ConsumerRecord<String, String> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? "(none)" : new String(header.value(), StandardCharsets.UTF_8);
    }

    /** Calls {@code hook} on every successful acknowledgement. */
    private record AcknowledgementHook(Runnable hook) implements ProducerInterceptor<String, String> {

        @Override
        public ProducerRecord<String, String> onSend(ProducerRecord<String, String> record) {
            return record;
        }

        @Override
        public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
            if (exception == null) {
                hook.run();
            }
        }

        @Override
        public void close() {
        }

        @Override
        public void configure(Map<String, ?> configs) {
        }
    }
}
